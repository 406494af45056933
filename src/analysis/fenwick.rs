//! A Fenwick tree (binary indexed tree) of 0/1 marks over `0..n`: mark a
//! position, count the marks below a position, and find the `k`-th mark,
//! each in `O(log n)`. The range-split simulation keeps the rows present
//! (by rank) and the ranges' first ranks in two of them.

/// Marks over `0..n`; each position is marked at most once.
#[derive(Debug, Clone)]
pub(crate) struct Fenwick {
    /// `tree[j]` (1-based) counts the marks in `(j − lowbit(j), j]`.
    tree: Vec<u32>,
    total: u64,
}

impl Fenwick {
    /// No marks over `0..n` (`n` at most `u32::MAX`, checked by the caller).
    pub(crate) fn new(n: usize) -> Self {
        Fenwick { tree: vec![0; n + 1], total: 0 }
    }

    /// The positions, `n`.
    pub(crate) fn len(&self) -> usize {
        self.tree.len() - 1
    }

    /// Mark position `i` (below `n`; ignored otherwise).
    pub(crate) fn mark(&mut self, i: usize) {
        let mut j = i + 1;
        if j >= self.tree.len() {
            return;
        }
        while j < self.tree.len() {
            self.tree[j] += 1;
            j += j & j.wrapping_neg();
        }
        self.total += 1;
    }

    /// The marks at positions below `i`.
    pub(crate) fn below(&self, i: usize) -> u64 {
        let mut j = i.min(self.len());
        let mut sum = 0u64;
        while j > 0 {
            sum += u64::from(self.tree[j]);
            j &= j - 1;
        }
        sum
    }

    /// The position of the `k`-th mark (counted from 0), or `n` when there
    /// are `k` marks or fewer.
    pub(crate) fn kth(&self, k: u64) -> usize {
        let n = self.len();
        if k >= self.total {
            return n;
        }
        let (mut pos, mut rest) = (0usize, k);
        let mut step = if n == 0 { 0 } else { 1usize << (usize::BITS - 1 - n.leading_zeros()) };
        while step > 0 {
            let next = pos + step;
            if next <= n && u64::from(self.tree[next]) <= rest {
                pos = next;
                rest -= u64::from(self.tree[next]);
            }
            step >>= 1;
        }
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_finds_as_a_linear_scan_does() {
        for n in [0usize, 1, 2, 7, 8, 9, 100] {
            let mut f = Fenwick::new(n);
            let mut marks = vec![false; n];
            for step in 0..n {
                let i = (step * 37 + 11) % n;
                f.mark(i);
                marks[i] = true;
                for p in 0..=n {
                    assert_eq!(f.below(p), marks[..p].iter().filter(|&&m| m).count() as u64, "n {n} p {p}");
                }
                let set: Vec<usize> = (0..n).filter(|&i| marks[i]).collect();
                for k in 0..=set.len() {
                    assert_eq!(f.kth(k as u64), set.get(k).copied().unwrap_or(n), "n {n} k {k}");
                }
            }
            f.mark(n); // past the end: ignored
            assert_eq!(f.below(n + 5), marks.iter().filter(|&&m| m).count() as u64);
        }
    }
}

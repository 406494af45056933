//! A random generator that draws exactly what Python's `random` draws.
//!
//! Document `004` picks which shards move to the new node with
//! `random.Random(42)` and `shuffle`. To reproduce its 89,813 exactly, this
//! module implements the same Mersenne Twister (MT19937), seeded the way
//! CPython seeds an integer (`init_by_array` over its 32-bit words), and
//! the same `getrandbits`, `randbelow`, `random` and `shuffle`.
//!
//! ```
//! use reshard::PyRandom;
//! // Python: random.Random(42).getrandbits(32) == 2746317213
//! assert_eq!(PyRandom::new(42).getrandbits(32)?, 2_746_317_213);
//! // Python: x = list(range(10)); random.Random(42).shuffle(x)
//! let mut x: Vec<u32> = (0..10).collect();
//! PyRandom::new(42).shuffle(&mut x)?;
//! assert_eq!(x, [7, 3, 2, 8, 5, 6, 9, 4, 0, 1]);
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::{Error, Result};

const N: usize = 624;
const M: usize = 397;

/// MT19937 with CPython's seeding, `getrandbits`, `randbelow`, `random` and `shuffle`.
#[derive(Clone)]
pub struct PyRandom {
    mt: [u32; N],
    index: usize,
}

impl std::fmt::Debug for PyRandom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyRandom {{ index: {} }}", self.index)
    }
}

impl PyRandom {
    /// The generator of `random.Random(seed)` for a non-negative integer seed.
    pub fn new(seed: u64) -> Self {
        let key: Vec<u32> = if seed >> 32 == 0 { vec![seed as u32] } else { vec![seed as u32, (seed >> 32) as u32] };
        PyRandom::from_key(&key)
    }

    fn init_genrand(s: u32) -> [u32; N] {
        let mut mt = [0u32; N];
        mt[0] = s;
        for i in 1..N {
            mt[i] = 1_812_433_253u32.wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_add(i as u32);
        }
        mt
    }

    /// `init_by_array(key)` of the reference MT19937.
    fn from_key(key: &[u32]) -> Self {
        let mut mt = PyRandom::init_genrand(19_650_218);
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        PyRandom { mt, index: N }
    }

    /// The next 32-bit output of the twister.
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            for k in 0..N {
                let y = (self.mt[k] & 0x8000_0000) | (self.mt[(k + 1) % N] & 0x7fff_ffff);
                let mut v = self.mt[(k + M) % N] ^ (y >> 1);
                if y & 1 != 0 {
                    v ^= 0x9908_b0df;
                }
                self.mt[k] = v;
            }
            self.index = 0;
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// Python's `getrandbits(k)` for `0 ≤ k ≤ 64`: `k ≤ 32` takes the top
    /// `k` bits of one output; above 32, the first output is the low word
    /// and the second output's top `k − 32` bits the high one, as CPython
    /// fills its words. Fails on `k > 64`.
    ///
    /// ```
    /// use reshard::PyRandom;
    /// // Python: random.Random(42).getrandbits(40) == 123005401501
    /// assert_eq!(PyRandom::new(42).getrandbits(40)?, 123_005_401_501);
    /// assert!(PyRandom::new(42).getrandbits(65).is_err());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn getrandbits(&mut self, k: u32) -> Result<u64> {
        match k {
            0 => Ok(0),
            1..=32 => Ok(u64::from(self.bits(k))),
            33..=64 => {
                let low = u64::from(self.next_u32());
                Ok(low | u64::from(self.bits(k - 32)) << 32)
            }
            _ => Err(Error::OutOfRange {
                what: "getrandbits bit count",
                given: k.to_string(),
                allowed: "0 to 64 (this generator draws at most 64 bits at a time)".into(),
            }),
        }
    }

    /// The top `k` bits of the next output, `1 ≤ k ≤ 32`.
    #[inline]
    fn bits(&mut self, k: u32) -> u32 {
        self.next_u32() >> (32 - k)
    }

    /// Python's `_randbelow(n)`: uniform in `0..n` by rejection. Like
    /// Python, `n = 1` still draws (bits until a 0). Fails on `n = 0`, an
    /// empty range, where Python's `randrange(0)` raises.
    pub fn randbelow(&mut self, n: u32) -> Result<u32> {
        if n == 0 {
            return Err(Error::OutOfRange {
                what: "randbelow bound",
                given: "0".into(),
                allowed: "n ≥ 1 (the range 0..0 is empty)".into(),
            });
        }
        Ok(self.below(u64::from(n)) as u32)
    }

    /// `randbelow` for `n ≥ 1`: `getrandbits(n.bit_length())` until below
    /// `n`, as CPython's `_randbelow_with_getrandbits` (above 32 bits the
    /// draw takes two outputs, as [`getrandbits`](PyRandom::getrandbits)).
    fn below(&mut self, n: u64) -> u64 {
        let k = 64 - n.leading_zeros();
        loop {
            let r = if k <= 32 {
                u64::from(self.bits(k))
            } else {
                let low = u64::from(self.next_u32());
                low | u64::from(self.bits(k - 32)) << 32
            };
            if r < n {
                return r;
            }
        }
    }

    /// Python's `random()`: a float in `[0, 1)` on the grid of 2^53 steps,
    /// `(a · 2^26 + b) / 2^53` with `a` the top 27 bits of one output and
    /// `b` the top 26 of the next, as CPython's `random_random`.
    ///
    /// ```
    /// use reshard::PyRandom;
    /// // Python: r = random.Random(42); r.random(), r.random()
    /// let mut r = PyRandom::new(42);
    /// assert_eq!((r.random(), r.random()), (0.6394267984578837, 0.025010755222666936));
    /// ```
    pub fn random(&mut self) -> f64 {
        let a = self.next_u32() >> 5;
        let b = self.next_u32() >> 6;
        (f64::from(a) * 67_108_864.0 + f64::from(b)) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// Python's `shuffle(x)`: for `i` from `len − 1` down to 1, swap `x[i]`
    /// with `x[randbelow(i + 1)]`. Slices longer than 2^32 draw 33 bits or
    /// more per swap, as Python does for such lists.
    ///
    /// A shuffle makes one draw per element after the first, so it fails
    /// with [`Error::TooLarge`], before any draw (the slice and the
    /// generator untouched), when those draws would be more than
    /// [`Limits::max_requests`](crate::limits::Limits::max_requests): a
    /// slice of zero-sized elements costs no memory however long it is, but
    /// its shuffle still costs one draw per element.
    ///
    /// ```
    /// use reshard::{Error, PyRandom};
    /// // Python: x = list(range(5)); random.Random(7).shuffle(x); x == [4, 0, 3, 1, 2]
    /// let mut x = [0, 1, 2, 3, 4];
    /// PyRandom::new(7).shuffle(&mut x)?;
    /// assert_eq!(x, [4, 0, 3, 1, 2]);
    /// let mut endless = vec![(); 1 << 40]; // no memory, 2^40 draws
    /// assert!(matches!(PyRandom::new(7).shuffle(&mut endless), Err(Error::TooLarge { .. })));
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn shuffle<T>(&mut self, x: &mut [T]) -> Result<()> {
        crate::limits::check_hint(
            "random draws of a shuffle (one per element after the first)",
            x.len().saturating_sub(1) as u128,
            crate::limits::current().max_requests,
            "shuffle a shorter list (or raise limits::Limits::max_requests)",
        )?;
        for i in (1..x.len()).rev() {
            // i < usize::MAX ≤ u64::MAX, so i + 1 fits; j ≤ i fits usize
            let j = self.below(i as u64 + 1) as usize;
            x.swap(i, j);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn randbelow_above_32_bits_is_pythons() {
        // python3: r = random.Random(42); [r._randbelow(2**33 + 5) for _ in range(4)]
        let mut r = PyRandom::new(42);
        let got: Vec<u64> = (0..4).map(|_| r.below((1 << 33) + 5)).collect();
        assert_eq!(got, [2_746_317_213, 1_181_241_943, 958_682_846, 3_163_119_785]);
        // python3: r = random.Random(7); [r._randbelow(2**40) for _ in range(3)]
        let mut r = PyRandom::new(7);
        let got: Vec<u64> = (0..3).map(|_| r.below(1 << 40)).collect();
        assert_eq!(got, [868_231_286_071, 105_874_957_392, 208_460_025_899]);
    }

    #[test]
    fn random_is_pythons() {
        // python3: r = random.Random(7); r.random()
        assert_eq!(PyRandom::new(7).random(), 0.32383276483316237);
        let mut r = PyRandom::new(1);
        assert!((0..10_000).map(|_| r.random()).all(|x| (0.0..1.0).contains(&x)));
    }
}

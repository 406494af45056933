//! ChaCha8, the uniform bits under the Zipf stream: the same 64-bit
//! outputs as `rand_chacha` 0.9's `ChaCha8Rng::seed_from_u64(seed)`, written
//! out here so that a notebook's `:dep reshard` brings no `rand_chacha`,
//! `rand_core`, `ppv-lite86` or `zerocopy` (the notebooks' kernel, evcxr,
//! analyses every crate of the build with its embedded rust-analyzer, and
//! zerocopy's thousands of generated trait impls cost about a second of
//! every notebook's first `let`: kernel/README.md).
//!
//! The generator (D. J. Bernstein, *ChaCha, a variant of Salsa20*, 2008,
//! with 8 rounds): a 4×4 matrix of 32-bit words — the four constants of
//! "expand 32-byte k", the 256-bit key, a 64-bit block counter and a
//! 64-bit stream number — goes through four double rounds (a column round
//! and a diagonal round of quarter-rounds: add, xor, rotate left by 16, 12,
//! 8, 7), and the input is added back; the 16 words are one block of
//! output. Blocks are numbered 0, 1, 2, … in stream 0, and a 64-bit output
//! is two consecutive words, the first one low (as `rand_core`'s `BlockRng`
//! reads them).
//!
//! The key comes from the `u64` seed as `rand_core` 0.9's
//! `SeedableRng::seed_from_u64` makes it: eight steps of PCG32
//! (multiplier 6364136223846793005, increment 11634580027462260723; each
//! step advances the state first, then outputs the xorshifted high bits
//! rotated by the top five), each output stored little-endian.
//!
//! The unit tests below check the block function against RFC 7539's test
//! vector (ChaCha20, the same function with 20 rounds) and the outputs
//! against `rand_chacha` itself (a dev-dependency only).

/// "expand 32-byte k", the four constant words.
const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// The ChaCha block function: `rounds` rounds (8 here; 20 in RFC 7539) over
/// the key, a 64-bit block counter and a 64-bit stream number.
pub(crate) fn block(key: &[u32; 8], counter: u64, stream: u64, rounds: u32) -> [u32; 16] {
    let mut input = [0u32; 16];
    input[..4].copy_from_slice(&SIGMA);
    input[4..12].copy_from_slice(key);
    input[12] = counter as u32;
    input[13] = (counter >> 32) as u32;
    input[14] = stream as u32;
    input[15] = (stream >> 32) as u32;
    let mut x = input;
    for _ in 0..rounds / 2 {
        quarter(&mut x, 0, 4, 8, 12);
        quarter(&mut x, 1, 5, 9, 13);
        quarter(&mut x, 2, 6, 10, 14);
        quarter(&mut x, 3, 7, 11, 15);
        quarter(&mut x, 0, 5, 10, 15);
        quarter(&mut x, 1, 6, 11, 12);
        quarter(&mut x, 2, 7, 8, 13);
        quarter(&mut x, 3, 4, 9, 14);
    }
    for (w, i) in x.iter_mut().zip(input) {
        *w = w.wrapping_add(i);
    }
    x
}

#[inline(always)]
fn quarter(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}

/// The 256-bit key `rand_core` 0.9's `seed_from_u64(seed)` makes, as eight
/// little-endian words.
pub(crate) fn key_from_u64(seed: u64) -> [u32; 8] {
    const MUL: u64 = 6_364_136_223_846_793_005;
    const INC: u64 = 11_634_580_027_462_260_723;
    let mut state = seed;
    let mut key = [0u32; 8];
    for word in &mut key {
        state = state.wrapping_mul(MUL).wrapping_add(INC);
        let xorshifted = (((state >> 18) ^ state) >> 27) as u32;
        *word = xorshifted.rotate_right((state >> 59) as u32);
    }
    key
}

/// ChaCha with 8 rounds in stream 0, read 64 bits at a time.
#[derive(Clone)]
pub(crate) struct ChaCha8 {
    key: [u32; 8],
    /// The number of the next block to compute.
    counter: u64,
    buf: [u32; 16],
    /// The next unread word of `buf` (16: none left).
    index: usize,
}

impl std::fmt::Debug for ChaCha8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // like rand_chacha's: the state is not printed
        f.write_str("ChaCha8 { .. }")
    }
}

impl ChaCha8 {
    /// The generator `rand_chacha::ChaCha8Rng::seed_from_u64(seed)` is.
    pub(crate) fn seed_from_u64(seed: u64) -> ChaCha8 {
        ChaCha8 { key: key_from_u64(seed), counter: 0, buf: [0; 16], index: 16 }
    }

    /// The next 64 bits: two words of the stream, the first one low.
    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        if self.index >= 16 {
            self.buf = block(&self.key, self.counter, 0, 8);
            self.counter = self.counter.wrapping_add(1);
            self.index = 0;
        }
        let (lo, hi) = (self.buf[self.index], self.buf[self.index + 1]);
        self.index += 2;
        (u64::from(hi) << 32) | u64::from(lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::{RngCore, SeedableRng};

    /// RFC 7539, appendix A.1, test vectors 1 and 2: ChaCha20's first two
    /// blocks for the all-zero key, counter 0 and 1, nonce 0 (the words as
    /// little-endian reads of the published bytes 76 b8 e0 ad …).
    #[test]
    fn chacha20_matches_rfc_7539() {
        let b0 = block(&[0; 8], 0, 0, 20);
        assert_eq!(&b0[..4], &[0xade0_b876, 0x903d_f1a0, 0xe56a_5d40, 0x28bd_8653]);
        assert_eq!(&b0[12..], &[0xf4b8_436a, 0x1ca1_1815, 0x69b6_87c3, 0x8665_eeb2]);
        let b1 = block(&[0; 8], 1, 0, 20);
        assert_eq!(&b1[..4], &[0xbee7_079f, 0x7a38_5155, 0x7c97_ba98, 0x0d08_2d73]);
    }

    /// draft-strombergson-chacha-test-vectors-00, TC1 with 8 rounds: the
    /// all-zero 256-bit key and IV, keystream bytes 3e 00 ef 2f 89 5f 40 d6 …
    #[test]
    fn chacha8_matches_the_published_keystream() {
        let b = block(&[0; 8], 0, 0, 8);
        assert_eq!(&b[..4], &[0x2fef_003e, 0xd640_5f89, 0xe8b8_5b7f, 0xa1a5_091f]);
    }

    /// The outputs rand_chacha 0.9 gives for the same seeds (a
    /// dev-dependency: the library itself does not build rand_chacha), past
    /// several blocks and rand_chacha's own 4-block buffer.
    #[test]
    fn same_u64s_as_rand_chacha() {
        for seed in [0, 1, 7, 2026, u64::MAX, 0x9e37_79b9_7f4a_7c15] {
            let mut ours = ChaCha8::seed_from_u64(seed);
            let mut theirs = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            for i in 0..1000 {
                assert_eq!(ours.next_u64(), theirs.next_u64(), "seed {seed}, output {i}");
            }
        }
    }

    /// The same key as rand_core's seed_from_u64 (the seed bytes are the
    /// key words, little-endian).
    #[test]
    fn same_key_as_rand_core() {
        for seed in [0, 3, 2026] {
            let theirs = rand_chacha::ChaCha8Rng::seed_from_u64(seed).get_seed();
            let ours: Vec<u8> = key_from_u64(seed).iter().flat_map(|w| w.to_le_bytes()).collect();
            assert_eq!(ours, theirs);
        }
    }
}

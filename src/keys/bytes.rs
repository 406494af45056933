//! Every key's bytes at hand at once (for sorting keys by their bytes, as
//! range sharding does): a listed key set's own buffer, or a numbered one
//! spelled into a buffer of its own.

use super::{max_held, KeySet, KEY_BYTES_HINT};
use crate::{limits, Result};

/// Every key's bytes at hand at once, in key order: the listed keys' own
/// buffer, or the numbered keys spelled into one (for sorting keys by
/// their bytes, as range sharding does).
pub(crate) struct KeyBytes<'a> {
    bytes: std::borrow::Cow<'a, [u8]>,
    offsets: std::borrow::Cow<'a, [u32]>,
}

impl KeyBytes<'_> {
    /// How many keys.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The bytes of key `i` (empty past the end).
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &[u8] {
        let (Some(&start), Some(&end)) = (self.offsets.get(i), self.offsets.get(i.saturating_add(1))) else {
            return &[];
        };
        self.bytes.get(start as usize..end as usize).unwrap_or_default()
    }
}

impl KeySet {
    /// `Ok` when every key can be held in memory at once: the keys within
    /// [`Limits::max_keys`](limits::Limits::max_keys), their bytes within
    /// [`Limits::max_key_bytes`](limits::Limits::max_key_bytes), else
    /// [`Error::TooLarge`]. A listed set was checked as it was read, a
    /// numbered one (`KeySet::plain(n)` takes any `n`) is checked here.
    pub(crate) fn check_held(&self) -> Result<()> {
        limits::check_hint("keys held in memory", self.count as u128, limits::current().max_keys, "use fewer keys")?;
        limits::check_hint("bytes of keys (keys × their length)", self.byte_len(), max_held(), KEY_BYTES_HINT)
    }

    /// Every key's bytes at once (see [`KeyBytes`]). Fails with
    /// [`Error::TooLarge`] when the keys or their bytes are over the limits.
    pub(crate) fn key_bytes(&self) -> Result<KeyBytes<'_>> {
        use std::borrow::Cow;
        if let Some(list) = &self.list {
            return Ok(KeyBytes { bytes: Cow::Borrowed(&list.0.bytes), offsets: Cow::Borrowed(&list.0.offsets) });
        }
        self.check_held()?;
        let mut bytes = Vec::with_capacity(self.byte_len() as usize);
        let mut offsets = Vec::with_capacity(self.count + 1);
        offsets.push(0u32);
        let mut w = self.writer();
        for i in 0..self.count {
            bytes.extend_from_slice(w.key(i));
            offsets.push(bytes.len() as u32);
        }
        Ok(KeyBytes { bytes: Cow::Owned(bytes), offsets: Cow::Owned(offsets) })
    }
}

//! The line where each key of a file (a pair's id) was first seen, to report a repeated key with
//! both lines.
//!
//! The index holds a 64-bit hash of each key (SipHash with a random key per index, so a crafted
//! file cannot make keys collide), not a copy of it: a million keys take a table of 16 MB with
//! no pointer to follow, instead of a million owned strings whose reads miss the cache as the
//! file grows. Two different keys with equal hashes are told apart by their text (the caller
//! keeps every key) and the later one is kept whole.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher, RandomState};

/// A hasher for keys that are already hashes: it passes a `u64` through.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

/// Where each key was first seen: see the module documentation.
#[derive(Default)]
pub struct FirstSeen {
    hasher: RandomState,
    /// A key's hash → (its entry number, its line).
    by_hash: HashMap<u64, (usize, u64), BuildHasherDefault<PassThrough>>,
    /// Keys whose hash equals an earlier different key's → their line.
    collided: HashMap<String, u64>,
}

impl FirstSeen {
    /// Records key number `entry`, `key`, seen on `line`. Returns the line of an earlier equal
    /// key, if any (the key is then not recorded again). `earlier(e)` is the text of the key
    /// recorded as entry `e`.
    pub fn insert<'a>(
        &mut self,
        key: &str,
        entry: usize,
        line: u64,
        earlier: impl Fn(usize) -> &'a str,
    ) -> Option<u64> {
        let hash = self.hasher.hash_one(key);
        match self.by_hash.get(&hash) {
            None => {
                self.by_hash.insert(hash, (entry, line));
                None
            }
            Some(&(first, first_line)) if earlier(first) == key => Some(first_line),
            Some(_) => match self.collided.get(key) {
                Some(&first_line) => Some(first_line),
                None => {
                    self.collided.insert(key.to_owned(), line);
                    None
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_line_of_a_repeated_key() {
        let keys = ["a", "b", "a", "c", "b"];
        let mut seen = FirstSeen::default();
        let firsts: Vec<Option<u64>> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| seen.insert(k, i, i as u64 + 2, |e| keys[e]))
            .collect();
        assert_eq!(firsts, [None, None, Some(2), None, Some(3)]);
    }

    #[test]
    fn tells_apart_different_keys_whose_hashes_collide() {
        // Force a collision: every key hashes to the same bucket through a forged entry.
        let mut seen = FirstSeen::default();
        let hash = seen.hasher.hash_one("x");
        seen.by_hash.insert(hash, (0, 2));
        let keys = ["y", "x", "x"];
        assert_eq!(seen.insert("x", 1, 3, |e| keys[e]), None);
        assert_eq!(seen.insert("x", 2, 4, |e| keys[e]), Some(3));
    }
}

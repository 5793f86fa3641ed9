//! Revisions and key-value records as etcd stores them.

use crate::base::Revision;
use serde::{Deserialize, Serialize};
use std::ops::Bound;

/// A lease ID (etcd's `int64` lease ID; 0 means "no lease").
pub type LeaseId = i64;

/// The keys a range covers, as `BTreeMap::range` takes them.
pub type KeyBounds<'a> = (Bound<&'a [u8]>, Bound<&'a [u8]>);

/// A revision with its sub-revision: the `sub`-th change of the write txn `main`
/// (etcd `mvcc/revision.go`). Ordered by `(main, sub)`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Rev {
    pub main: Revision,
    pub sub: i64,
}

impl Rev {
    pub const fn new(main: Revision, sub: i64) -> Rev {
        Rev { main, sub }
    }

    /// The backend key: 8 bytes big-endian main, `_`, 8 bytes big-endian sub, then `t` for a
    /// tombstone (etcd `revToBytes`, `appendMarkTombstone`).
    pub fn to_backend_key(self, tombstone: bool) -> Vec<u8> {
        let mut out = Vec::with_capacity(18);
        out.extend_from_slice(&self.main.to_be_bytes());
        out.push(b'_');
        out.extend_from_slice(&self.sub.to_be_bytes());
        if tombstone {
            out.push(b't');
        }
        out
    }
}

/// Revisions in order, packed: a first and a count while each is the next main revision (a
/// write that changes one key makes one revision, so the backend's are mostly so), else 8
/// bytes each while every one fits (a main revision below 2^47 and a sub-revision below
/// 2^16, as every class's are), else 16. The backend keeps one per revision written
/// (360,000 in an hour at 100 writes/s).
#[derive(Clone, Debug)]
pub enum RevList {
    /// `(first + i, 0)` for every `i` below `len`.
    Step {
        first: Revision,
        len: usize,
    },
    /// `main << 16 | sub`, which orders as the revisions do.
    Packed(Vec<u64>),
    Wide(Vec<Rev>),
}

impl Default for RevList {
    fn default() -> RevList {
        RevList::Step { first: 0, len: 0 }
    }
}

/// Equal revisions, however each list holds them.
impl PartialEq for RevList {
    fn eq(&self, other: &RevList) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for RevList {}

impl RevList {
    fn pack(r: Rev) -> Option<u64> {
        let fits = (0..1 << 47).contains(&r.main) && (0..1 << 16).contains(&r.sub);
        fits.then_some((r.main as u64) << 16 | r.sub as u64)
    }

    fn unpack(p: u64) -> Rev {
        Rev::new((p >> 16) as Revision, (p & 0xffff) as i64)
    }

    pub fn len(&self) -> usize {
        match self {
            RevList::Step { len, .. } => *len,
            RevList::Packed(v) => v.len(),
            RevList::Wide(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, i: usize) -> Option<Rev> {
        match self {
            RevList::Step { first, len } => (i < *len).then(|| Rev::new(first + i as Revision, 0)),
            RevList::Packed(v) => v.get(i).map(|p| Self::unpack(*p)),
            RevList::Wide(v) => v.get(i).copied(),
        }
    }

    pub fn first(&self) -> Option<Rev> {
        self.get(0)
    }

    pub fn last(&self) -> Option<Rev> {
        self.get(self.len().checked_sub(1)?)
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = Rev> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    pub fn push(&mut self, r: Rev) {
        match (&mut *self, Self::pack(r)) {
            (RevList::Step { first, len }, _) if *len == 0 && r.sub == 0 => {
                (*first, *len) = (r.main, 1);
            }
            (RevList::Step { first, len }, _)
                if r.sub == 0 && first.checked_add(*len as Revision) == Some(r.main) =>
            {
                *len += 1;
            }
            (RevList::Packed(v), Some(p)) => v.push(p),
            (RevList::Wide(v), _) => v.push(r),
            (RevList::Step { .. } | RevList::Packed(_), packed) => {
                *self = match (
                    self.iter().map(Self::pack).collect::<Option<Vec<u64>>>(),
                    packed,
                ) {
                    (Some(mut all), Some(p)) => {
                        all.push(p);
                        RevList::Packed(all)
                    }
                    _ => RevList::Wide(self.iter().chain([r]).collect()),
                };
            }
        }
    }

    /// Where `r` is, or where it would go (as `slice::binary_search`).
    pub fn binary_search(&self, r: &Rev) -> Result<usize, usize> {
        match (self, Self::pack(*r)) {
            (RevList::Step { first, len }, _) => {
                let below = r.main.saturating_sub(*first).clamp(0, *len as Revision) as usize;
                match self.get(below) {
                    Some(at) if at == *r => Ok(below),
                    Some(at) if at < *r => Err(below + 1),
                    _ => Err(below),
                }
            }
            (RevList::Packed(v), Some(p)) => v.binary_search(&p),
            (RevList::Packed(v), None) => Err(v.partition_point(|p| Self::unpack(*p) < *r)),
            (RevList::Wide(v), _) => v.binary_search(r),
        }
    }

    pub fn reserve_exact(&mut self, more: usize) {
        match self {
            RevList::Step { .. } => {}
            RevList::Packed(v) => v.reserve_exact(more),
            RevList::Wide(v) => v.reserve_exact(more),
        }
    }

    pub fn shrink_to_fit(&mut self) {
        match self {
            RevList::Step { .. } => {}
            RevList::Packed(v) => v.shrink_to_fit(),
            RevList::Wide(v) => v.shrink_to_fit(),
        }
    }
}

/// One version of a key (etcd `mvccpb.KeyValue`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyValue {
    pub key: Vec<u8>,
    pub create_revision: Revision,
    pub mod_revision: Revision,
    /// Number of puts in the key's current generation (1 after creation).
    pub version: i64,
    pub value: Vec<u8>,
    /// The attached lease, 0 for none.
    pub lease: LeaseId,
}

impl KeyValue {
    /// The protobuf encoding etcd stores in its backend (gogoproto: zero fields omitted).
    pub fn encode_proto(&self, out: &mut Vec<u8>) {
        put_bytes_field(out, 1, &self.key);
        put_varint_field(out, 2, self.create_revision);
        put_varint_field(out, 3, self.mod_revision);
        put_varint_field(out, 4, self.version);
        put_bytes_field(out, 5, &self.value);
        put_varint_field(out, 6, self.lease);
    }

    /// The record [`KeyValue::encode_proto`] wrote, or `None` for bytes it could not have
    /// written (fields out of order or repeated, a truncated varint or field).
    pub fn decode_proto(bytes: &[u8]) -> Option<KeyValue> {
        let mut kv = KeyValue::default();
        let mut r = ProtoReader(bytes);
        let mut last_field = 0;
        while let Some(tag) = r.varint() {
            let field = tag >> 3;
            if field <= last_field {
                return None;
            }
            last_field = field;
            match (field, tag & 7) {
                (1, 2) => kv.key = r.bytes()?.to_vec(),
                (5, 2) => kv.value = r.bytes()?.to_vec(),
                (2..=4 | 6, 0) => {
                    let v = r.varint()? as i64;
                    match field {
                        2 => kv.create_revision = v,
                        3 => kv.mod_revision = v,
                        4 => kv.version = v,
                        _ => kv.lease = v,
                    }
                }
                _ => return None,
            }
        }
        r.0.is_empty().then_some(kv)
    }

    /// The key of an encoding [`KeyValue::encode_proto`] wrote, without decoding the rest.
    pub fn proto_key(bytes: &[u8]) -> &[u8] {
        let mut r = ProtoReader(bytes);
        match r.varint() {
            Some(0x0a) => r.bytes().unwrap_or_default(),
            _ => &[],
        }
    }

    /// Length of [`KeyValue::encode_proto`]'s output, without encoding.
    pub fn proto_len(&self) -> usize {
        bytes_field_len(self.key.len())
            + varint_field_len(self.create_revision)
            + varint_field_len(self.mod_revision)
            + varint_field_len(self.version)
            + bytes_field_len(self.value.len())
            + varint_field_len(self.lease)
    }
}

/// Reads the two wire types `encode_proto` writes: varints and length-delimited bytes.
struct ProtoReader<'a>(&'a [u8]);

impl<'a> ProtoReader<'a> {
    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for (i, &b) in self.0.iter().enumerate().take(10) {
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                self.0 = &self.0[i + 1..];
                return Some(v);
            }
        }
        None
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = usize::try_from(self.varint()?).ok()?;
        if len > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(len);
        self.0 = rest;
        Some(head)
    }
}

fn varint_len(v: u64) -> usize {
    let bits = 64 - v.leading_zeros() as usize;
    bits.max(1).div_ceil(7)
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_varint_field(out: &mut Vec<u8>, field: u8, v: i64) {
    if v != 0 {
        out.push(field << 3);
        put_varint(out, v as u64);
    }
}

fn varint_field_len(v: i64) -> usize {
    if v == 0 {
        0
    } else {
        1 + varint_len(v as u64)
    }
}

fn put_bytes_field(out: &mut Vec<u8>, field: u8, b: &[u8]) {
    if !b.is_empty() {
        out.push((field << 3) | 2);
        put_varint(out, b.len() as u64);
        out.extend_from_slice(b);
    }
}

fn bytes_field_len(n: usize) -> usize {
    if n == 0 {
        0
    } else {
        1 + varint_len(n as u64) + n
    }
}

/// CRC-32C (Castagnoli), the checksum etcd's `hashkv` uses.
#[derive(Clone, Copy, Debug)]
pub struct Crc32c(u32);

const fn crc32c_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0x82F6_3B78 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
}

static CRC32C_TABLE: [u32; 256] = crc32c_table();

impl Default for Crc32c {
    fn default() -> Self {
        Crc32c(!0)
    }
}

impl Crc32c {
    pub fn update(&mut self, data: &[u8]) {
        let mut c = self.0;
        for &b in data {
            c = CRC32C_TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
        }
        self.0 = c;
    }

    pub fn finish(self) -> u32 {
        !self.0
    }
}

/// The end of the range of keys that start with `prefix` (clientv3 `GetPrefixRangeEnd`):
/// the prefix with its last byte below 0xff incremented; `[0]` ("to the end") if there is none.
pub fn prefix_range_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    vec![0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rev_list_reads_as_the_revisions_it_stands_for() {
        use crate::base::Rng;
        for seed in 0..40 {
            let mut rng = Rng::new(seed);
            let (mut list, mut want) = (RevList::default(), Vec::<Rev>::new());
            let mut main = 1;
            // Seeds from 30 on write as single-change writes do, one main revision each,
            // until one step breaks the pattern.
            let steady = seed >= 30;
            for _ in 0..300 {
                if steady && !rng.chance(0.01) {
                    main += 1;
                    list.push(Rev::new(main, 0));
                    want.push(Rev::new(main, 0));
                    assert!(list.iter().eq(want.iter().copied()), "seed {seed}");
                    let probe = Rev::new(rng.range(0, main as u64 + 2) as Revision, 0);
                    assert_eq!(list.binary_search(&probe), want.binary_search(&probe));
                    continue;
                }
                main += rng.range(0, 3) as Revision;
                let sub = match rng.range(0, 40) {
                    0 if seed % 2 == 0 => 1 << 16,
                    1 if seed % 3 == 0 => {
                        main += 1 << 47;
                        0
                    }
                    _ => rng.range(0, 3) as i64,
                };
                let r = Rev::new(main, sub);
                if want.last().is_some_and(|l| *l >= r) {
                    continue;
                }
                list.push(r);
                want.push(r);
                assert_eq!(list.len(), want.len(), "seed {seed}");
                assert!(list.iter().eq(want.iter().copied()), "seed {seed}");
                assert_eq!(
                    (list.first(), list.last()),
                    (want.first().copied(), want.last().copied())
                );
                let probe = Rev::new(
                    rng.range(0, main as u64 + 2) as Revision,
                    rng.range(0, 3) as i64,
                );
                assert_eq!(
                    list.binary_search(&probe),
                    want.binary_search(&probe),
                    "seed {seed}"
                );
            }
            if seed % 6 == 0 && !steady {
                assert!(
                    matches!(list, RevList::Wide(_)),
                    "seed {seed}: a revision that does not fit"
                );
            }
        }
        let mut small = RevList::default();
        small.push(Rev::new(5, 0));
        small.push(Rev::new(6, 0));
        assert!(matches!(small, RevList::Step { first: 5, len: 2 }));
        assert_eq!(small.binary_search(&Rev::new(5, 1)), Err(1));
        small.push(Rev::new(6, 1));
        assert!(matches!(small, RevList::Packed(_)));
        assert_eq!(small.binary_search(&Rev::new(1 << 50, 0)), Err(3));
        let mut stepped = RevList::default();
        stepped.push(Rev::new(5, 0));
        stepped.push(Rev::new(6, 0));
        stepped.push(Rev::new(6, 1));
        let mut packed = RevList::Packed(Vec::new());
        (stepped.iter()).for_each(|r| packed.push(r));
        assert_eq!(stepped, packed, "lists compare by the revisions they hold");
    }

    #[test]
    fn crc32c_known_vector() {
        let mut c = Crc32c::default();
        c.update(b"123456789");
        assert_eq!(c.finish(), 0xE306_9283);
    }

    #[test]
    fn proto_len_matches_encoding() {
        let kv = KeyValue {
            key: b"foo".to_vec(),
            create_revision: 2,
            mod_revision: 300,
            version: 3,
            value: vec![7; 200],
            lease: 8606275714869496714,
        };
        let mut out = Vec::new();
        kv.encode_proto(&mut out);
        assert_eq!(out.len(), kv.proto_len());
        assert_eq!(&out[..5], &[0x0a, 3, b'f', b'o', b'o']);
        let tomb = KeyValue {
            key: b"k".to_vec(),
            ..KeyValue::default()
        };
        let mut out = Vec::new();
        tomb.encode_proto(&mut out);
        assert_eq!(out, vec![0x0a, 1, b'k']);
    }

    #[test]
    fn proto_decodes_what_it_encoded_and_refuses_the_rest() {
        let kvs = [
            KeyValue::default(),
            KeyValue {
                key: b"k".to_vec(),
                ..KeyValue::default()
            },
            KeyValue {
                key: vec![0xff; 300],
                create_revision: i64::MAX,
                mod_revision: 1,
                version: -1,
                value: vec![0; 70_000],
                lease: i64::MIN,
            },
        ];
        for kv in kvs {
            let mut out = Vec::new();
            kv.encode_proto(&mut out);
            assert_eq!(KeyValue::decode_proto(&out).as_ref(), Some(&kv));
            assert_eq!(KeyValue::proto_key(&out), &kv.key[..]);
            for cut in 1..out.len().min(400) {
                let truncated = KeyValue::decode_proto(&out[..out.len() - cut]);
                assert_ne!(truncated.as_ref(), Some(&kv), "cut {cut}");
            }
        }
        // A field twice, a field out of order, a wire type encode_proto never writes.
        for bad in [
            &[0x10, 1, 0x10, 2][..],
            &[0x18, 1, 0x10, 1],
            &[0x0d, 0, 0, 0, 0],
        ] {
            assert_eq!(KeyValue::decode_proto(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn backend_key_layout() {
        let k = Rev::new(2, 1).to_backend_key(true);
        assert_eq!(k.len(), 18);
        assert_eq!(k[8], b'_');
        assert_eq!(k[17], b't');
    }

    #[test]
    fn prefix_ends() {
        assert_eq!(prefix_range_end(b"dir/"), b"dir0".to_vec());
        assert_eq!(prefix_range_end(b"a\xff"), b"b".to_vec());
        assert_eq!(prefix_range_end(b"\xff\xff"), vec![0]);
        assert_eq!(prefix_range_end(b""), vec![0]);
    }
}

//! Canonical bytes straight from JSON text: the reader ([`super::reader`]) records one value as
//! a flat tape of nodes pointing into the input, then [`Tape::write`] walks it once, writing
//! every object's members in UTF-16 key order.
//!
//! Why a tape and not a `serde_json::Value`: a `Value` allocates a node per string and a
//! B-tree per object, and writing it copies every string again. On the tape, a string without
//! escapes (nearly all of them) is a range of the input, copied to the output as it is: the
//! input cannot hold a raw `"`, `\` or control character inside a string, and RFC 8785 writes
//! every other character raw. Escaped strings are decoded once into an arena (and escaped again
//! on output); numbers are classified by [`super::number`]. Sorting an object's members uses one
//! scratch vector shared by all objects (a stack: a nested object sorts above its parent), and
//! costs nothing when the keys are in order already. The three vectors are reused from one
//! value to the next, so a 10 000-tool page allocates only the items' own output.
//!
//! Semantics are those of `write_jcs(&serde_json::from_slice::<Value>(text)?)`, duplicate keys
//! included: the last occurrence of a key wins (serde_json's map keeps the last value), and its
//! earlier values are validated but not written.

use std::cmp::Ordering;

use super::number::Canonical;
use super::reader::{Bail, Literal, Reader, Sink, Str, decode};
use super::{utf16_cmp_bytes, write_string_bytes};

/// One value on the tape. Ranges are `u32` (the reader refuses larger inputs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Node {
    Null,
    True,
    False,
    /// A number written `0`.
    Zero,
    /// A string without escapes: `src[a..b]`, quotes included, written verbatim.
    Str(u32, u32),
    /// A string with escapes: its decoded text in `arena[a..b]`, escaped on output.
    Esc(u32, u32),
    /// A string value whose escapes JCS writes the same way (`\n`, `\"`, ...): `src[a..b]`,
    /// quotes included, written verbatim and decoded only when looked up.
    StrEsc(u32, u32),
    /// A number whose source text `src[a..b]` is canonical.
    Num(u32, u32),
    /// A number formatted into `arena[a..b]`.
    Formatted(u32, u32),
    /// An array; the index one past its last descendant.
    Arr(u32),
    /// An object (children: key, value, key, value, ...); one past its last descendant.
    Obj(u32),
}

fn idx(v: usize) -> Result<u32, Bail> {
    u32::try_from(v).map_err(|_| Bail)
}

fn range(a: u32, b: u32) -> std::ops::Range<usize> {
    a as usize..b as usize
}

/// The tape of one value, with its arena and the sorting scratch (all reused).
#[derive(Debug, Default)]
pub(crate) struct Tape {
    nodes: Vec<Node>,
    arena: Vec<u8>,
    members: Vec<(u32, u32)>,
}

impl Sink for Tape {
    fn literal(&mut self, which: Literal) -> Result<(), Bail> {
        self.nodes.push(match which {
            Literal::Null => Node::Null,
            Literal::True => Node::True,
            Literal::False => Node::False,
        });
        Ok(())
    }

    fn string(&mut self, src: &[u8], t: Str, key: bool) -> Result<(), Bail> {
        // Keys are compared by their decoded text, so an escaped key is decoded at once.
        let node = if !t.escaped {
            Node::Str(idx(t.start)?, idx(t.end)?)
        } else if t.canonical && !key {
            Node::StrEsc(idx(t.start)?, idx(t.end)?)
        } else {
            let a = idx(self.arena.len())?;
            decode(t.inner(src), &mut self.arena)?;
            Node::Esc(a, idx(self.arena.len())?)
        };
        self.nodes.push(node);
        Ok(())
    }

    fn number(
        &mut self,
        src: &[u8],
        start: usize,
        end: usize,
        canonical: Canonical,
    ) -> Result<(), Bail> {
        let node = match canonical {
            Canonical::Verbatim => Node::Num(idx(start)?, idx(end)?),
            Canonical::Zero => Node::Zero,
            other => {
                let a = idx(self.arena.len())?;
                other.write(&src[start..end], &mut self.arena);
                Node::Formatted(a, idx(self.arena.len())?)
            }
        };
        self.nodes.push(node);
        Ok(())
    }

    fn open(&mut self, object: bool) -> Result<usize, Bail> {
        let at = self.nodes.len();
        self.nodes
            .push(if object { Node::Obj(0) } else { Node::Arr(0) });
        Ok(at)
    }

    fn close(&mut self, handle: usize) -> Result<(), Bail> {
        let end = idx(self.nodes.len())?;
        match self.nodes.get_mut(handle) {
            Some(Node::Obj(e) | Node::Arr(e)) => {
                *e = end;
                Ok(())
            }
            _ => Err(Bail),
        }
    }
}

impl Tape {
    /// Reads the next value of `reader` onto the (cleared) tape.
    pub(crate) fn read(&mut self, reader: &mut Reader<'_>) -> Result<(), Bail> {
        self.nodes.clear();
        self.arena.clear();
        self.members.clear();
        reader.value(self)
    }

    /// The value of the top-level object's member `key` (its last occurrence), as seen by
    /// `serde_json::Value::get`: `None` when absent (or the value is not an object),
    /// `Some(None)` when present but not a string, `Some(Some(text))` with the decoded text
    /// (decoded into `buf` when it has escapes).
    pub(crate) fn member_str<'s>(
        &'s self,
        src: &'s [u8],
        key: &[u8],
        buf: &'s mut Vec<u8>,
    ) -> Result<Option<Option<&'s [u8]>>, Bail> {
        let Some(&Node::Obj(end)) = self.nodes.first() else {
            return Ok(None);
        };
        let mut found = None;
        let mut i = 1;
        while i < end as usize {
            let v = i + 1;
            if self.key_bytes(src, i) == key {
                found = Some(v);
            }
            i = self.next(v);
        }
        let Some(v) = found else {
            return Ok(None);
        };
        Ok(Some(match self.nodes.get(v) {
            Some(&Node::StrEsc(a, b)) => {
                buf.clear();
                decode(
                    src.get(a as usize + 1..(b as usize).saturating_sub(1))
                        .ok_or(Bail)?,
                    buf,
                )?;
                Some(buf.as_slice())
            }
            _ => self.str_bytes(src, v),
        }))
    }

    /// Writes the canonical (RFC 8785) bytes of the value read to `out`.
    pub(crate) fn write(&mut self, src: &[u8], out: &mut Vec<u8>) {
        if !self.nodes.is_empty() {
            let Tape {
                nodes,
                arena,
                members,
            } = self;
            Writer { nodes, arena, src }.node(0, members, out);
        }
    }

    fn next(&self, i: usize) -> usize {
        match self.nodes.get(i) {
            Some(Node::Arr(e) | Node::Obj(e)) => *e as usize,
            _ => i + 1,
        }
    }

    fn key_bytes<'s>(&'s self, src: &'s [u8], i: usize) -> &'s [u8] {
        self.str_bytes(src, i).unwrap_or_default()
    }

    fn str_bytes<'s>(&'s self, src: &'s [u8], i: usize) -> Option<&'s [u8]> {
        match self.nodes.get(i) {
            Some(&Node::Str(a, b)) => src.get(a as usize + 1..(b as usize).saturating_sub(1)),
            Some(&Node::Esc(a, b)) => self.arena.get(range(a, b)),
            _ => None,
        }
    }
}

/// The read-only half of a tape during [`Tape::write`] (the member stack is the mutable half).
struct Writer<'t> {
    nodes: &'t [Node],
    arena: &'t [u8],
    src: &'t [u8],
}

impl Writer<'_> {
    fn next(&self, i: usize) -> usize {
        match self.nodes.get(i) {
            Some(Node::Arr(e) | Node::Obj(e)) => *e as usize,
            _ => i + 1,
        }
    }

    /// The decoded text of key node `i` (a string node by construction).
    fn key(&self, i: u32) -> &[u8] {
        match self.nodes.get(i as usize) {
            Some(&Node::Str(a, b)) => self
                .src
                .get(a as usize + 1..(b as usize).saturating_sub(1))
                .unwrap_or_default(),
            Some(&Node::Esc(a, b)) => self.arena.get(range(a, b)).unwrap_or_default(),
            _ => &[],
        }
    }

    /// Writes node `i`; returns the index after its subtree.
    fn node(&self, i: usize, members: &mut Vec<(u32, u32)>, out: &mut Vec<u8>) -> usize {
        let Some(&node) = self.nodes.get(i) else {
            return i + 1;
        };
        match node {
            Node::Null => out.extend_from_slice(b"null"),
            Node::True => out.extend_from_slice(b"true"),
            Node::False => out.extend_from_slice(b"false"),
            Node::Zero => out.push(b'0'),
            Node::Str(a, b) | Node::StrEsc(a, b) | Node::Num(a, b) => {
                out.extend_from_slice(self.src.get(range(a, b)).unwrap_or_default());
            }
            Node::Formatted(a, b) => {
                out.extend_from_slice(self.arena.get(range(a, b)).unwrap_or_default());
            }
            Node::Esc(a, b) => {
                write_string_bytes(self.arena.get(range(a, b)).unwrap_or_default(), out);
            }
            Node::Arr(end) => {
                out.push(b'[');
                let mut j = i + 1;
                while j < end as usize {
                    if j > i + 1 {
                        out.push(b',');
                    }
                    j = self.node(j, members, out);
                }
                out.push(b']');
                return end as usize;
            }
            Node::Obj(end) => {
                self.object(i, end as usize, members, out);
                return end as usize;
            }
        }
        i + 1
    }

    fn object(&self, i: usize, end: usize, members: &mut Vec<(u32, u32)>, out: &mut Vec<u8>) {
        let base = members.len();
        let mut j = i + 1;
        let mut in_order = true;
        while j < end {
            let (k, v) = (j as u32, (j + 1) as u32);
            if in_order && let Some(&(prev, _)) = members.get(base..).and_then(<[_]>::last) {
                in_order = utf16_cmp_bytes(self.key(prev), self.key(k)) == Ordering::Less;
            }
            members.push((k, v));
            j = self.next(j + 1);
        }
        let top = members.len();
        if !in_order {
            // Ties (duplicate keys) keep document order, so the last occurrence is last.
            members[base..top].sort_unstable_by(|x, y| {
                utf16_cmp_bytes(self.key(x.0), self.key(y.0)).then(x.1.cmp(&y.1))
            });
        }
        out.push(b'{');
        let mut first = true;
        for m in base..top {
            let (k, v) = members[m];
            if !in_order
                && members
                    .get(m + 1)
                    .filter(|_| m + 1 < top)
                    .is_some_and(|&(k2, _)| self.key(k2) == self.key(k))
            {
                continue; // overwritten by a later duplicate
            }
            if !first {
                out.push(b',');
            }
            first = false;
            match self.nodes.get(k as usize) {
                Some(&Node::Str(a, b)) => {
                    out.extend_from_slice(self.src.get(range(a, b)).unwrap_or_default());
                }
                _ => write_string_bytes(self.key(k), out),
            }
            out.push(b':');
            self.node(v as usize, members, out);
        }
        out.push(b'}');
        members.truncate(base);
    }
}

/// The canonical bytes of the JSON text `json`, or [`Bail`] when the fast path declines
/// (serde_json then decides). Used by the tests and the fuzz targets to pit the tape against the
/// `Value` writer.
#[cfg(any(test, feature = "differential"))]
pub(crate) fn canonical(json: &[u8]) -> Result<Vec<u8>, Bail> {
    let mut reader = Reader::new(json);
    let mut tape = Tape::default();
    tape.read(&mut reader)?;
    if !reader.at_end() {
        return Err(Bail);
    }
    let mut out = Vec::with_capacity(json.len());
    tape.write(json, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests;

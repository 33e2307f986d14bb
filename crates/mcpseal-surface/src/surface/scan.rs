//! The fast path: capture bytes (or a capture's raw pages) → [`Surface`] in one pass, each item
//! read once onto a tape and written canonically ([`crate::jcs::tape`]), without a
//! `RawCapture`, a page copy or a `Value` per item.
//!
//! Contract: when this path returns a surface, it is the surface the reference path
//! ([`Surface::from_slice`]'s serde walk: validate, `RawCapture`, [`super::pages::build_list`])
//! returns; whenever it cannot be sure of that, it declines ([`Bail`]) and the reference path runs
//! from the start, so every refusal, and its exact error, still comes from the reference path.
//! It declines on anything the reference refuses (invalid JSON, a lone surrogate, a number
//! beyond the double range, nesting past 127, a missing or unknown era, a newer
//! `schemaVersion`, a duplicate field of the capture document, shapes serde would refuse, an
//! item without a string identity in a list that would be served, duplicate identities), and
//! also on a few legal but rare shapes it does not handle (a list key twice in one page, an
//! `era` or a failure `kind` written as an object).
//!
//! Fields are matched on their decoded names (as serde does), the last occurrence of a key
//! inside a page or an item wins, and a list's verdict follows the reference's order: a failure,
//! then no page, then the first malformed page, then the items.

use mcpseal_protocol::{Era, ListFailure, ListKind, RawCapture};
use serde_json::value::RawValue;

use super::pages::{
    Context, failed, first_duplicate, no_array, no_page, not_an_object, not_captured, sort_items,
};
use super::server::{server_part, server_part_of};
use super::{Item, ListState, Surface};
use crate::jcs::reader::{Bail, Reader, Validate, decode};
use crate::jcs::tape::Tape;

/// [`Surface::from_slice`], fast.
pub(super) fn from_slice(bytes: &[u8]) -> Result<Surface, Bail> {
    let mut r = Reader::new(bytes);
    let mut tape = Tape::default();
    let mut era = None;
    let mut server: Option<Option<(usize, usize)>> = None;
    let (mut schema, mut failure_text, mut lists_seen) = (false, false, false);
    let mut lists: [Option<Verdict>; 4] = Default::default();
    if r.peek() != Some(b'{') {
        return Err(Bail);
    }
    object(&mut r, |r, key| match key {
        b"schemaVersion" => {
            once(&mut schema)?;
            // Versions 0 and 1 are read; anything else is refused or newer.
            let start = start(r);
            r.value(&mut Validate)?;
            match &r.src()[start..r.pos()] {
                b"0" | b"1" => Ok(()),
                _ => Err(Bail),
            }
        }
        b"era" => {
            if era.is_some() {
                return Err(Bail);
            }
            let mut text = Vec::new();
            string(r, &mut text)?;
            era = Some(match text.as_slice() {
                b"2025-11-25" => Era::Legacy,
                b"2026-07-28" => Era::Modern,
                _ => return Err(Bail),
            });
            Ok(())
        }
        b"server" => {
            if server.is_some() {
                return Err(Bail);
            }
            let null = r.peek() == Some(b'n');
            let start = start(r);
            r.value(&mut Validate)?;
            server = Some((!null).then_some((start, r.pos())));
            Ok(())
        }
        b"serverFailure" => {
            once(&mut failure_text)?;
            match r.peek() {
                Some(b'n' | b'"') => r.value(&mut Validate),
                _ => Err(Bail),
            }
        }
        b"lists" => {
            once(&mut lists_seen)?;
            if r.peek() != Some(b'{') {
                return Err(Bail);
            }
            object(r, |r, key| {
                let Some(kind) = ListKind::ALL
                    .into_iter()
                    .find(|k| k.key().as_bytes() == key)
                else {
                    return r.value(&mut Validate);
                };
                let slot = &mut lists[kind.index()];
                if slot.is_some() {
                    return Err(Bail);
                }
                *slot = Some(match r.peek() {
                    Some(b'n') => {
                        r.value(&mut Validate)?;
                        Verdict::Done(not_captured())
                    }
                    Some(b'{') => list_capture(r, kind, &mut tape)?,
                    _ => return Err(Bail),
                });
                Ok(())
            })
        }
        _ => r.value(&mut Validate),
    })?;
    if !r.at_end() {
        return Err(Bail);
    }
    let era = era.ok_or(Bail)?;
    let server_text = match server.flatten() {
        Some((a, b)) => Some(std::str::from_utf8(&bytes[a..b]).map_err(|_| Bail)?),
        None => None,
    };
    // A failure is judged with what the server said of itself, which the document may hold
    // after its lists.
    let cx = Context::of_text(era, server_text);
    Ok(Surface {
        era,
        server: server_part_of(era, server_text).map_err(|_| Bail)?,
        lists: resolve(lists, cx),
    })
}

/// A list's verdict, or its failure still to be judged against the server's capabilities.
enum Verdict {
    Done(ListState),
    Failure(ListFailure),
}

/// The four lists' states, in [`ListKind::ALL`] order.
fn resolve(lists: [Option<Verdict>; 4], cx: Context) -> [ListState; 4] {
    let one = |kind: ListKind, v: Option<Verdict>| match v {
        None => not_captured(),
        Some(Verdict::Done(state)) => state,
        Some(Verdict::Failure(f)) => failed(kind, &f, cx),
    };
    let [tools, resources, templates, prompts] = lists;
    [
        one(ListKind::Tools, tools),
        one(ListKind::Resources, resources),
        one(ListKind::ResourceTemplates, templates),
        one(ListKind::Prompts, prompts),
    ]
}

/// [`Surface::from_capture`], fast: every page and the server result read once.
pub(super) fn from_capture(capture: &RawCapture) -> Result<Surface, Bail> {
    if let Some(server) = &capture.server {
        standalone(server, |r| r.value(&mut Validate))?;
    }
    let mut tape = Tape::default();
    let mut lists: [Option<Verdict>; 4] = Default::default();
    for kind in ListKind::ALL {
        let state = match capture.lists.get(kind) {
            None => Verdict::Done(not_captured()),
            Some(list) => {
                // A failed list's pages are only validated.
                let mut build = ListBuild::new(kind, list.failure.is_some());
                for (p, page) in list.pages.iter().enumerate() {
                    standalone(page, |r| build.page(r, &mut tape, p))?;
                }
                build.finish(list.failure.clone())?
            }
        };
        lists[kind.index()] = Some(state);
    }
    let cx = Context::new(capture.era, capture.server_result().as_ref());
    Ok(Surface {
        era: capture.era,
        server: server_part(capture).map_err(|_| Bail)?,
        lists: resolve(lists, cx),
    })
}

/// Reads raw JSON text as a document of its own (depth counted from it, as the reference's
/// `validate_json` does).
fn standalone(
    raw: &RawValue,
    f: impl FnOnce(&mut Reader<'_>) -> Result<(), Bail>,
) -> Result<(), Bail> {
    let mut r = Reader::new(raw.get().as_bytes());
    f(&mut r)?;
    if r.at_end() { Ok(()) } else { Err(Bail) }
}

/// The position of the next value (after whitespace).
fn start(r: &mut Reader<'_>) -> usize {
    r.peek();
    r.pos()
}

/// Marks a field as seen; a second occurrence is a duplicate field serde refuses.
fn once(seen: &mut bool) -> Result<(), Bail> {
    if std::mem::replace(seen, true) {
        Err(Bail)
    } else {
        Ok(())
    }
}

/// Walks an object (at `{`), calling `f` with each decoded key, the reader at its value.
fn object<'a>(
    r: &mut Reader<'a>,
    mut f: impl FnMut(&mut Reader<'a>, &[u8]) -> Result<(), Bail>,
) -> Result<(), Bail> {
    if r.open(b'{', b'}')? {
        return Ok(());
    }
    let mut decoded = Vec::new();
    loop {
        let k = r.key()?;
        let src = r.src();
        let key = if k.escaped {
            decoded.clear();
            decode(k.inner(src), &mut decoded)?;
            decoded.as_slice()
        } else {
            k.inner(src)
        };
        f(r, key)?;
        if !r.more(b'}')? {
            return Ok(());
        }
    }
}

/// Walks an array (at `[`), calling `f` with each element's index.
fn array<'a>(
    r: &mut Reader<'a>,
    mut f: impl FnMut(&mut Reader<'a>, usize) -> Result<(), Bail>,
) -> Result<(), Bail> {
    if r.open(b'[', b']')? {
        return Ok(());
    }
    let mut i = 0;
    loop {
        f(r, i)?;
        i += 1;
        if !r.more(b']')? {
            return Ok(());
        }
    }
}

/// Reads a string value, decoded, into `out`; anything else declines.
fn string(r: &mut Reader<'_>, out: &mut Vec<u8>) -> Result<(), Bail> {
    let s = r.string()?;
    let inner = s.inner(r.src());
    if s.escaped {
        decode(inner, out)
    } else {
        out.extend_from_slice(inner);
        Ok(())
    }
}

/// One list capture object (`{"pages": [...], "failure": ...}`).
fn list_capture(r: &mut Reader<'_>, kind: ListKind, tape: &mut Tape) -> Result<Verdict, Bail> {
    let mut build = ListBuild::new(kind, false);
    let mut pages = false;
    let mut failure: Option<Option<ListFailure>> = None;
    object(r, |r, key| match key {
        b"pages" => {
            once(&mut pages)?;
            if r.peek() != Some(b'[') {
                return Err(Bail);
            }
            array(r, |r, p| build.page(r, tape, p))
        }
        b"failure" => {
            if failure.is_some() {
                return Err(Bail);
            }
            failure = Some(list_failure(r)?);
            Ok(())
        }
        _ => r.value(&mut Validate),
    })?;
    build.finish(failure.flatten())
}

/// `null` or `{"kind": "...", "message": "...", "cause": ...}`: validated here, then read by
/// serde (a small object, with optional fields added over time; serde refuses what the
/// reference refuses, such as a duplicate field or an unknown kind, and then we decline).
fn list_failure(r: &mut Reader<'_>) -> Result<Option<ListFailure>, Bail> {
    match r.peek() {
        Some(b'n') => return r.value(&mut Validate).map(|()| None),
        Some(b'{') => {}
        _ => return Err(Bail),
    }
    let start = start(r);
    r.value(&mut Validate)?;
    serde_json::from_slice::<ListFailure>(&r.src()[start..r.pos()])
        .map(Some)
        .map_err(|_| Bail)
}

/// One list being read page by page, with the reference's verdicts kept in its order.
struct ListBuild {
    kind: ListKind,
    items: Vec<Item>,
    pages: usize,
    /// The first malformed page's verdict (pass 1 of the reference: it wins over item errors).
    malformed: Option<ListState>,
    /// An item the strict path would refuse was seen: unless the list turns out failed or
    /// malformed, the reference path must produce the error.
    refused: bool,
    /// The list has a failure: its items are only validated.
    failed: bool,
}

impl ListBuild {
    fn new(kind: ListKind, failed: bool) -> Self {
        ListBuild {
            kind,
            items: Vec::new(),
            pages: 0,
            malformed: None,
            refused: false,
            failed,
        }
    }

    /// Items are canonicalised only while the list may still be served.
    fn active(&self) -> bool {
        !self.failed && !self.refused && self.malformed.is_none()
    }

    fn page(&mut self, r: &mut Reader<'_>, tape: &mut Tape, p: usize) -> Result<(), Bail> {
        self.pages += 1;
        if r.peek() != Some(b'{') {
            if self.malformed.is_none() {
                self.malformed = Some(not_an_object(p));
            }
            return r.value(&mut Validate);
        }
        let key = self.kind.key();
        let (mut found, mut is_array) = (false, false);
        object(r, |r, k| {
            if k != key.as_bytes() {
                return r.value(&mut Validate);
            }
            // The last occurrence would win; rare enough to leave to the reference.
            once(&mut found)?;
            if r.peek() != Some(b'[') {
                return r.value(&mut Validate);
            }
            is_array = true;
            array(r, |r, _| self.item(r, tape))
        })?;
        if !is_array && self.malformed.is_none() {
            self.malformed = Some(no_array(p, key));
        }
        Ok(())
    }

    fn item(&mut self, r: &mut Reader<'_>, tape: &mut Tape) -> Result<(), Bail> {
        if !self.active() {
            return r.value(&mut Validate);
        }
        let start = start(r);
        tape.read(r)?;
        let src = r.src();
        // Decoding scratch: allocates only for an identity or description with escapes.
        let mut buf = Vec::new();
        let Some(Some(identity)) =
            tape.member_str(src, self.kind.identity_key().as_bytes(), &mut buf)?
        else {
            self.refused = true;
            return Ok(());
        };
        let identity = String::from_utf8(identity.to_vec()).map_err(|_| Bail)?;
        let mut canonical = Vec::with_capacity(r.pos() - start);
        tape.write(src, &mut canonical);
        let description = tape.member_str(src, b"description", &mut buf)?.flatten();
        self.items.push(Item::new(identity, canonical, description));
        Ok(())
    }

    fn finish(self, failure: Option<ListFailure>) -> Result<Verdict, Bail> {
        if let Some(f) = failure {
            return Ok(Verdict::Failure(f));
        }
        if self.pages == 0 {
            return Ok(Verdict::Done(no_page()));
        }
        if let Some(m) = self.malformed {
            return Ok(Verdict::Done(m));
        }
        if self.refused {
            return Err(Bail);
        }
        let mut items = self.items;
        sort_items(&mut items);
        if first_duplicate(&items).is_some() {
            return Err(Bail);
        }
        Ok(Verdict::Done(ListState::Served(items)))
    }
}

#[cfg(test)]
mod tests;

//! `search`: walks a folder for names matching a glob and, optionally, lines
//! containing a substring. Bounded in results, bytes read, entries visited,
//! depth and time; unreadable entries are skipped and reported.

use crate::files::{child, kind_of};
use crate::glob;
use crate::paths::{io_error, resolve};
use mcpwasm::{Call, ToolResult, Value};
use std::fs;
use std::io::Read;
use std::time::{Duration, Instant};

pub const DEFAULT_RESULTS: i64 = 100;
pub const MAX_RESULTS: i64 = 1000;
pub const DEFAULT_BYTES: i64 = 16 << 20;
pub const MAX_BYTES: i64 = 256 << 20;
pub const DEFAULT_DEPTH: i64 = 20;
const MAX_ENTRIES: usize = 200_000;
const PER_FILE: usize = 20;
/// Files are read this much at a time.
const CHUNK: usize = 64 * 1024;
/// Lines longer than this are searched in pieces (a match across a piece
/// boundary is missed), so memory stays bounded.
const MAX_LINE: usize = 1 << 20;
const SHOW: usize = 200;

struct Walk {
    pattern: String,
    needle: Option<String>,
    ignore_case: bool,
    include_hidden: bool,
    max_results: usize,
    bytes_left: u64,
    max_bytes: u64,
    max_depth: usize,
    until: Instant,
    // Results and accounting.
    lines: Vec<String>,
    matches: Vec<Value>,
    files: usize,
    dirs: usize,
    entries: usize,
    bytes: u64,
    binary: usize,
    hidden: usize,
    skipped: Vec<(String, String)>,
    stop: Option<String>,
}

impl Walk {
    fn full(&self) -> bool {
        self.stop.is_some()
    }

    fn check_time(&mut self) {
        if self.stop.is_none() && Instant::now() >= self.until {
            self.stop = Some("the call's time limit was near; narrow the path or pattern".into());
        }
    }

    fn add(&mut self, line: String, v: Value) {
        self.lines.push(line);
        self.matches.push(v);
        if self.matches.len() >= self.max_results {
            self.stop = Some(format!(
                "reached max_results={}; narrow the search or raise max_results (at most {})",
                self.max_results, MAX_RESULTS
            ));
        }
    }

    fn skip(&mut self, path: &str, why: String) {
        self.skipped.push((path.to_string(), why));
    }

    fn dir(&mut self, path: &str, depth: usize) {
        self.dirs += 1;
        let rd = match fs::read_dir(path) {
            Ok(rd) => rd,
            Err(e) => return self.skip(path, io_error("list", path, &e)),
        };
        let mut items = Vec::new();
        for de in rd {
            self.entries += 1;
            if self.entries > MAX_ENTRIES {
                self.stop = Some(format!("visited {} entries; search a smaller folder", MAX_ENTRIES));
                break;
            }
            match de {
                Ok(de) => {
                    let kind = de.file_type().map(kind_of).unwrap_or("other");
                    items.push((de.file_name().to_string_lossy().into_owned(), kind));
                }
                Err(e) => self.skip(path, io_error("list", path, &e)),
            }
        }
        items.sort();
        let mut subdirs = Vec::new();
        for (name, kind) in items {
            if self.full() {
                return;
            }
            if name.starts_with('.') && !self.include_hidden {
                self.hidden += 1;
                continue;
            }
            let child = child(path, &name);
            let hit = glob::matches(&self.pattern, &name, self.ignore_case);
            match (kind, self.needle.is_some()) {
                ("file", true) if hit => self.file(&child),
                (_, false) if hit => {
                    let size = if kind == "file" { fs::symlink_metadata(&child).ok().map(|m| m.len()) } else { None };
                    let shown = size.map_or("-".to_string(), |n| n.to_string());
                    let slash = if kind == "dir" { "/" } else { "" };
                    let mut v = Value::object().with("path", child.as_str()).with("type", kind);
                    if let Some(n) = size {
                        v.insert("size", n as i64);
                    }
                    self.add(format!("{}\t{}\t{}{}", kind, shown, child, slash), v);
                }
                _ => {}
            }
            if kind == "dir" {
                subdirs.push(child);
            }
        }
        for sub in subdirs {
            self.check_time();
            if self.full() {
                return;
            }
            if depth < self.max_depth {
                self.dir(&sub, depth + 1);
            }
        }
    }

    fn file(&mut self, path: &str) {
        self.check_time();
        if self.full() {
            return;
        }
        if self.bytes_left == 0 {
            self.stop = Some(format!("read max_bytes={} bytes; narrow the search or raise max_bytes", self.max_bytes));
            return;
        }
        let mut f = match fs::File::open(path) {
            Ok(f) => f.take(self.bytes_left),
            Err(e) => return self.skip(path, io_error("read", path, &e)),
        };
        self.files += 1;
        // Read in chunks; search whole runs of complete lines at once, and
        // carry an unfinished line over to the next chunk.
        let (mut buf, mut chunk) = (Vec::new(), vec![0u8; CHUNK]);
        let (mut lineno, mut found, mut first) = (1usize, 0usize, true);
        loop {
            let n = match f.read(&mut chunk) {
                Ok(n) => n,
                Err(e) => {
                    self.skip(path, io_error("read", path, &e));
                    break;
                }
            };
            if first && chunk[..n.min(8192)].contains(&0) {
                self.binary += 1;
                return;
            }
            first = false;
            self.bytes += n as u64;
            self.bytes_left = self.bytes_left.saturating_sub(n as u64);
            buf.extend_from_slice(&chunk[..n]);
            // Only the new bytes can hold a newline: the carried ones have none.
            let end = match chunk[..n].iter().rposition(|&b| b == b'\n').map(|i| buf.len() - n + i) {
                _ if n == 0 => buf.len(),
                Some(i) => i + 1,
                None if buf.len() >= MAX_LINE => buf.len(), // a very long line is searched in pieces
                None => continue,
            };
            // from_utf8 has a fast path for ASCII; the lossy decoder does not.
            let text = match std::str::from_utf8(&buf[..end]) {
                Ok(t) => std::borrow::Cow::Borrowed(t),
                Err(_) => String::from_utf8_lossy(&buf[..end]),
            };
            found += self.scan(path, &text, lineno, found);
            lineno += count_newlines(text.as_bytes());
            drop(text);
            buf.drain(..end);
            self.check_time();
            if n == 0 || self.full() {
                break;
            }
        }
        if found > PER_FILE && self.stop.is_none() {
            self.lines.push(format!("{}: {} more matching lines not shown", path, found - PER_FILE));
        }
        if self.bytes_left == 0 && self.stop.is_none() {
            self.stop = Some(format!("read max_bytes={} bytes; narrow the search or raise max_bytes", self.max_bytes));
        }
    }

    /// Records the lines of `text` (which starts at line `lineno`) that hold
    /// the needle, at most one hit per line, and returns how many there were.
    fn scan(&mut self, path: &str, text: &str, lineno: usize, before: usize) -> usize {
        let needle = self.needle.clone().unwrap_or_default();
        let mut hits = Vec::new();
        if self.ignore_case && !needle.is_ascii() {
            for (i, line) in text.split('\n').enumerate() {
                if let Some(at) = line.to_lowercase().find(&needle) {
                    hits.push((lineno + i, line, at));
                }
            }
        } else {
            // ASCII case folding keeps byte offsets, so one search covers the run.
            let folded;
            let hay = if self.ignore_case {
                folded = text.to_ascii_lowercase();
                folded.as_str()
            } else {
                text
            };
            let (mut pos, mut counted, mut line) = (0, 0, lineno);
            while let Some(at) = find_bytes(hay.as_bytes(), needle.as_bytes(), pos) {
                let start = hay[..at].rfind('\n').map_or(0, |x| x + 1);
                let end = hay[at..].find('\n').map_or(hay.len(), |x| at + x);
                line += count_newlines(&hay.as_bytes()[counted..start]);
                counted = start;
                hits.push((line, &text[start..end], at - start));
                pos = end;
            }
        }
        let count = hits.len();
        for (n, (line, body, at)) in hits.into_iter().enumerate() {
            if before + n >= PER_FILE || self.full() {
                break;
            }
            let shown = excerpt(body.trim_end_matches('\r'), at);
            let v = Value::object().with("path", path).with("line", line).with("text", shown.as_str());
            self.add(format!("{}:{}: {}", path, line, shown), v);
        }
        count
    }
}

// Content search spends its time in the two loops below, which look at eight
// bytes at a time: wasm runs plain byte loops (and core's generic substring
// search, compiled at opt-level "z") several times slower.
const ONES: u64 = 0x0101_0101_0101_0101;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// The high bit of each byte of the result is set iff that byte of `w` equals `b`.
fn equal_bytes(w: &[u8], b: u8) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(w);
    let v = u64::from_le_bytes(a) ^ (ONES * b as u64);
    !(((v & LOW7) + LOW7) | v) & !LOW7
}

/// The number of '\n' bytes in `b`.
pub fn count_newlines(b: &[u8]) -> usize {
    let mut words = b.chunks_exact(8);
    let n: usize = (&mut words).map(|w| equal_bytes(w, b'\n').count_ones() as usize).sum();
    n + words.remainder().iter().filter(|&&c| c == b'\n').count()
}

/// The first position at or after `from` where `needle` (not empty) starts.
pub fn find_bytes(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let last = hay.len().checked_sub(needle.len())?;
    let first = *needle.first()?;
    let mut i = from;
    while i <= last {
        if i + 8 <= hay.len() {
            let hits = equal_bytes(&hay[i..i + 8], first);
            if hits == 0 {
                i += 8;
                continue;
            }
            i += hits.trailing_zeros() as usize / 8;
            if i > last {
                return None;
            }
        } else if hay[i] != first {
            i += 1;
            continue;
        }
        if &hay[i..i + needle.len()] == needle {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// At most SHOW characters of `line` around byte offset `at` (approximate
/// when `at` comes from a lowercased copy).
fn excerpt(line: &str, at: usize) -> String {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= SHOW {
        return line.to_string();
    }
    let at_char = line.char_indices().take_while(|(i, _)| *i < at).count();
    let start = at_char.saturating_sub(60).min(chars.len() - SHOW);
    let body: String = chars[start..start + SHOW].iter().collect();
    format!("{}{}{}", if start > 0 { "…" } else { "" }, body, if start + SHOW < chars.len() { "…" } else { "" })
}

fn bounded(call: &Call, key: &str, default: i64, min: i64, max: i64) -> Result<i64, String> {
    let v = call.opt_integer(key)?.unwrap_or(default);
    if v < min || v > max {
        return Err(format!("{} must be between {} and {}, got {}", key, min, max, v));
    }
    Ok(v)
}

pub fn search(call: &Call) -> Result<ToolResult, String> {
    let root = resolve(call.string("path")?, &call.mounts())?;
    let pattern = call.opt_string("pattern")?.filter(|p| !p.is_empty()).unwrap_or("*").to_string();
    let ignore_case = call.opt_boolean("ignore_case")?.unwrap_or(false);
    let needle = call.opt_string("content")?.filter(|s| !s.is_empty()).map(|s| {
        if ignore_case {
            s.to_lowercase()
        } else {
            s.to_string()
        }
    });
    let max_bytes = bounded(call, "max_bytes", DEFAULT_BYTES, 1, MAX_BYTES)? as u64;
    let ms = call.deadline_ms().unwrap_or(5000).max(200) as u64;
    let mut w = Walk {
        include_hidden: call.opt_boolean("include_hidden")?.unwrap_or(false) || pattern.starts_with('.'),
        max_results: bounded(call, "max_results", DEFAULT_RESULTS, 1, MAX_RESULTS)? as usize,
        max_depth: bounded(call, "max_depth", DEFAULT_DEPTH, 0, 64)? as usize,
        until: Instant::now() + Duration::from_millis(ms * 3 / 4),
        pattern,
        needle,
        ignore_case,
        bytes_left: max_bytes,
        max_bytes,
        lines: Vec::new(),
        matches: Vec::new(),
        files: 0,
        dirs: 0,
        entries: 0,
        bytes: 0,
        binary: 0,
        hidden: 0,
        skipped: Vec::new(),
        stop: None,
    };
    let md = fs::metadata(&root.path).map_err(|e| io_error("search", &root.path, &e))?;
    if md.is_dir() {
        w.dir(&root.path, 0);
    } else if w.needle.is_some() {
        w.file(&root.path);
    } else {
        return Err(format!(
            "not a directory: {} (give a folder to search, or a content string to search this file)",
            root.path
        ));
    }
    Ok(report(&w, &root.path))
}

fn report(w: &Walk, root: &str) -> ToolResult {
    let what = match &w.needle {
        Some(n) => format!("names matching {:?} containing {:?}", w.pattern, n),
        None => format!("names matching {:?}", w.pattern),
    };
    let mut text = if w.matches.is_empty() {
        format!("no matches for {} under {}\n", what, root)
    } else {
        format!("{} matches for {} under {}:\n", w.matches.len(), what, root)
    };
    for l in &w.lines {
        text.push_str(l);
        text.push('\n');
    }
    let mut summary = format!("searched {} folders", w.dirs);
    if w.needle.is_some() {
        summary.push_str(&format!(", read {} files ({} bytes)", w.files, w.bytes));
    }
    if w.binary > 0 {
        summary.push_str(&format!("; skipped {} binary files", w.binary));
    }
    if w.hidden > 0 {
        summary.push_str(&format!("; skipped {} hidden entries (include_hidden=true searches them)", w.hidden));
    }
    if !w.skipped.is_empty() {
        let first: Vec<&str> = w.skipped.iter().take(3).map(|(_, why)| why.as_str()).collect();
        summary.push_str(&format!("; skipped {} unreadable entries ({})", w.skipped.len(), first.join("; ")));
    }
    text.push_str(&summary);
    text.push('\n');
    if let Some(why) = &w.stop {
        text.push_str(&format!("truncated: {}\n", why));
    }
    let skipped: Vec<Value> = w
        .skipped
        .iter()
        .take(20)
        .map(|(p, why)| Value::object().with("path", p.as_str()).with("error", why.as_str()))
        .collect();
    let mut v = Value::object()
        .with("path", root)
        .with("pattern", w.pattern.as_str())
        .with("matches", Value::Array(w.matches.clone()))
        .with("truncated", w.stop.is_some())
        .with("folders_searched", w.dirs)
        .with("files_read", w.files)
        .with("bytes_read", w.bytes as i64)
        .with("skipped", skipped);
    if let Some(n) = &w.needle {
        v.insert("content", n.as_str());
    }
    if let Some(why) = &w.stop {
        v.insert("stopped_because", why.as_str());
    }
    ToolResult::text(text).with_structured(v)
}

#[cfg(test)]
mod tests {
    use super::{count_newlines, excerpt, find_bytes};

    #[test]
    fn finds() {
        let hay = b"abcabcabd0123456789abd";
        for (needle, from, want) in [
            (&b"abd"[..], 0, Some(6)),
            (b"abd", 7, Some(19)),
            (b"abd", 20, None),
            (b"a", 0, Some(0)),
            (b"d", 9, Some(21)),
            (b"xyz", 0, None),
            (b"abcabcabd0123456789abdX", 0, None),
            (b"", 0, None),
        ] {
            assert_eq!(find_bytes(hay, needle, from), want, "{:?} from {}", std::str::from_utf8(needle), from);
        }
        let long: Vec<u8> = b"ab".iter().cycle().take(1001).copied().chain(b"needle".iter().copied()).collect();
        assert_eq!(find_bytes(&long, b"needle", 0), Some(1001));
        assert_eq!(find_bytes("xé€needle".as_bytes(), "€n".as_bytes(), 0), Some(3));
    }

    #[test]
    fn newlines() {
        for text in [&b""[..], b"\n", b"abc", b"a\nb\n", b"\n\n\n\n\n\n\n\n\n", b"0123456\n89\n\x8a\x0b\n\x0a\xff\n"] {
            let want = text.iter().filter(|&&b| b == b'\n').count();
            assert_eq!(count_newlines(text), want, "{:?}", text);
        }
        let bytes: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
        assert_eq!(count_newlines(&bytes), bytes.iter().filter(|&&b| b == b'\n').count());
    }

    #[test]
    fn excerpts() {
        assert_eq!(excerpt("short line", 6), "short line");
        let long = format!("{}NEEDLE{}", "a".repeat(300), "b".repeat(300));
        let e = excerpt(&long, 300);
        assert!(e.starts_with('…') && e.ends_with('…') && e.contains("NEEDLE"), "{}", e);
        assert_eq!(e.chars().count(), 202);
        let e = excerpt(&long, 0);
        assert!(!e.starts_with('…'));
    }
}

//! `list_dir`, `stat` and `read_file`, and what they share with resources:
//! directory listings, text detection, MIME guesses and timestamps.

use crate::paths::{describe, io_error, resolve, Target};
use mcpwasm::{Call, Mount, ToolResult, Value};
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::time::{SystemTime, UNIX_EPOCH};

pub const DEFAULT_LIST: usize = 500;
pub const MAX_LIST: usize = 5000;
/// Names gathered before sorting; a larger folder is listed in part.
const MAX_SCAN: usize = 100_000;
pub const DEFAULT_READ: u64 = 256 * 1024;
pub const MAX_READ: u64 = 1024 * 1024;

/// One directory entry: name, "file" | "dir" | "symlink" | "other", size of files.
pub struct Entry {
    pub name: String,
    pub kind: &'static str,
    pub size: Option<u64>,
}

pub fn kind_of(ft: fs::FileType) -> &'static str {
    if ft.is_symlink() {
        "symlink"
    } else if ft.is_dir() {
        "dir"
    } else if ft.is_file() {
        "file"
    } else {
        "other"
    }
}

/// `dir/name`.
pub fn child(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{}{}", dir, name)
    } else {
        format!("{}/{}", dir, name)
    }
}

/// The entries of `t`, sorted by name, at most `limit`, and how many there were.
pub fn read_entries(t: &Target, limit: usize) -> Result<(Vec<Entry>, usize, bool), String> {
    let md = fs::metadata(&t.path).map_err(|e| io_error("list", &t.path, &e))?;
    if !md.is_dir() {
        return Err(format!("not a directory: {} (use read_file or stat for files)", t.path));
    }
    let rd = fs::read_dir(&t.path).map_err(|e| io_error("list", &t.path, &e))?;
    let mut all = Vec::new();
    let mut more = false;
    for de in rd {
        if all.len() == MAX_SCAN {
            more = true;
            break;
        }
        let de = match de {
            Ok(d) => d,
            Err(_) => continue,
        };
        let kind = de.file_type().map(kind_of).unwrap_or("other");
        let name = de.file_name().to_string_lossy().into_owned();
        // By full path, not DirEntry::metadata: under mcpwasm, a stat relative
        // to the directory handle of a mount's root fails with EPERM.
        let size =
            if kind == "file" { fs::symlink_metadata(child(&t.path, &name)).ok().map(|m| m.len()) } else { None };
        all.push(Entry { name, kind, size });
    }
    all.sort_by(|a, b| a.name.cmp(&b.name));
    let total = all.len();
    all.truncate(limit);
    Ok((all, total, more))
}

/// The listing as text: a header, then one `type<TAB>size<TAB>name` line each.
pub fn listing_text(path: &str, entries: &[Entry], total: usize, more: bool) -> String {
    let mut s = format!("{}: {}{} entries\n", path, total, if more { "+" } else { "" });
    for e in entries {
        let size = e.size.map_or("-".to_string(), |n| n.to_string());
        let slash = if e.kind == "dir" { "/" } else { "" };
        s.push_str(&format!("{}\t{}\t{}{}\n", e.kind, size, e.name, slash));
    }
    if entries.len() < total || more {
        s.push_str(&format!(
            "truncated: showing the first {} of {}{} entries (sorted by name); raise limit (at most {}) \
             or use search with a name pattern\n",
            entries.len(),
            total,
            if more { "+" } else { "" },
            MAX_LIST
        ));
    }
    s
}

fn mounts_text(mounts: &[Mount]) -> ToolResult {
    let mut s =
        if mounts.is_empty() { format!("allowed roots: {}\n", describe(mounts)) } else { "allowed roots:\n".into() };
    let mut list = Value::array();
    for m in mounts {
        s.push_str(&format!("{}\t{}\n", if m.read_only { "read-only" } else { "read-write" }, m.path));
        list.push(Value::object().with("path", m.path.as_str()).with("read_only", m.read_only));
    }
    ToolResult::text(s).with_structured(Value::object().with("roots", list))
}

pub fn list_dir(call: &Call) -> Result<ToolResult, String> {
    let mounts = call.mounts();
    let path = match call.opt_string("path")? {
        None | Some("") => return Ok(mounts_text(&mounts)),
        Some(p) => p,
    };
    let limit = call.opt_integer("limit")?.unwrap_or(DEFAULT_LIST as i64).clamp(1, MAX_LIST as i64) as usize;
    let t = resolve(path, &mounts)?;
    let (entries, total, more) = read_entries(&t, limit)?;
    let mut list = Value::array();
    for e in &entries {
        let mut v = Value::object().with("name", e.name.as_str()).with("type", e.kind);
        if let Some(n) = e.size {
            v.insert("size", n as i64);
        }
        list.push(v);
    }
    let structured = Value::object()
        .with("path", t.path.as_str())
        .with("entries", list)
        .with("total", total)
        .with("truncated", entries.len() < total || more);
    Ok(ToolResult::text(listing_text(&t.path, &entries, total, more)).with_structured(structured))
}

pub fn stat(call: &Call) -> Result<ToolResult, String> {
    let mounts = call.mounts();
    let t = resolve(call.string("path")?, &mounts)?;
    let md = fs::symlink_metadata(&t.path).map_err(|e| io_error("stat", &t.path, &e))?;
    let kind = kind_of(md.file_type());
    let mut v = Value::object().with("path", t.path.as_str()).with("type", kind);
    let mut text = format!("path: {}\ntype: {}\n", t.path, kind);
    if kind == "symlink" {
        let target = match fs::metadata(&t.path) {
            Ok(m) => kind_of(m.file_type()).to_string(),
            Err(e) => io_error("follow", &t.path, &e),
        };
        text.push_str(&format!("points to: {}\n", target));
        v.insert("target", target);
    }
    if kind == "file" {
        text.push_str(&format!("size: {} bytes\n", md.len()));
        v.insert("size", md.len() as i64);
    }
    if let Some(when) = md.modified().ok().and_then(rfc3339) {
        text.push_str(&format!("modified: {}\n", when));
        v.insert("modified", when);
    }
    let mode = if t.mount.read_only { "read-only" } else { "read-write" };
    text.push_str(&format!("mount: {} ({})\n", t.mount.path, mode));
    v.insert("read_only", t.mount.read_only);
    v.insert("mount", t.mount.path.as_str());
    Ok(ToolResult::text(text).with_structured(v))
}

/// Whether `bytes` reads as text: valid UTF-8 (an incomplete character at
/// the very end is allowed when `cut` is set, and left out of the returned
/// length), no NUL, and few other control characters. Returns the text's
/// length in bytes.
pub fn text_len(bytes: &[u8], cut: bool) -> Option<usize> {
    let n = match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) if cut && e.error_len().is_none() => e.valid_up_to(),
        Err(_) => return None,
    };
    let controls = bytes[..n].iter().filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b));
    let mut count = 0;
    for &b in controls {
        if b == 0 {
            return None;
        }
        count += 1;
    }
    if count * 100 > n {
        return None;
    }
    Some(n)
}

/// A MIME type from the file name's extension.
pub fn mime_for(path: &str, is_text: bool) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or("");
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    let known = match ext.as_str() {
        "txt" | "text" | "log" => "text/plain",
        "md" | "markdown" => "text/markdown",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "tsv" => "text/tab-separated-values",
        "xml" => "application/xml",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" | "tsx" => "text/x-typescript",
        "json" => "application/json",
        "toml" => "application/toml",
        "yaml" | "yml" => "application/yaml",
        "rs" => "text/x-rust",
        "go" => "text/x-go",
        "py" => "text/x-python",
        "c" | "h" => "text/x-c",
        "cc" | "cpp" | "hpp" => "text/x-c++",
        "java" => "text/x-java",
        "sh" | "bash" => "application/x-sh",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/vnd.microsoft.icon",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" | "tgz" => "application/gzip",
        "tar" => "application/x-tar",
        "wasm" => "application/wasm",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "mp4" => "video/mp4",
        _ => "",
    };
    match (known, is_text) {
        ("", true) => "text/plain",
        ("", false) => "application/octet-stream",
        (m, _) => m,
    }
}

/// `2025-01-31T12:00:00Z` for a time after 1970, else `None`.
pub fn rfc3339(t: SystemTime) -> Option<String> {
    let secs = t.duration_since(UNIX_EPOCH).ok()?.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    Some(format!("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", y, m, d, rem / 3600, rem / 60 % 60, rem % 60))
}

pub fn read_file(call: &Call) -> Result<ToolResult, String> {
    let t = resolve(call.string("path")?, &call.mounts())?;
    let offset = call.opt_integer("offset")?.unwrap_or(0);
    if offset < 0 {
        return Err(format!("offset must be 0 or more, got {}", offset));
    }
    let length = call.opt_integer("length")?.unwrap_or(DEFAULT_READ as i64);
    if length < 1 || length as u64 > MAX_READ {
        return Err(format!("length must be between 1 and {} bytes, got {}", MAX_READ, length));
    }
    let (mut offset, length) = (offset as u64, length as u64);
    let md = fs::metadata(&t.path).map_err(|e| io_error("read", &t.path, &e))?;
    if md.is_dir() {
        return Err(format!("is a directory: {} (use list_dir to see its entries)", t.path));
    }
    let size = md.len();
    if offset > size {
        return Err(format!("offset {} is past the end of {} ({} bytes)", offset, t.path, size));
    }
    let mut f = fs::File::open(&t.path).map_err(|e| io_error("read", &t.path, &e))?;
    f.seek(SeekFrom::Start(offset)).map_err(|e| io_error("read", &t.path, &e))?;
    let mut buf = Vec::new();
    f.take(length).read_to_end(&mut buf).map_err(|e| io_error("read", &t.path, &e))?;
    // An offset inside a UTF-8 character: start at the next character.
    let skip = if offset > 0 { buf.iter().take(3).take_while(|&&b| b & 0xC0 == 0x80).count() } else { 0 };
    let more = offset + (buf.len() as u64) < size;
    let as_text = text_len(&buf[skip..], more);
    if let Some(n) = as_text {
        buf = buf[skip..skip + n].to_vec();
        offset += skip as u64;
    }
    let end = offset + buf.len() as u64;
    let mime = mime_for(&t.path, as_text.is_some());
    let mut v = Value::object()
        .with("path", t.path.as_str())
        .with("size", size as i64)
        .with("offset", offset as i64)
        .with("length", buf.len())
        .with("encoding", if as_text.is_some() { "utf-8" } else { "base64" })
        .with("mimeType", mime)
        .with("truncated", end < size);
    let range = if offset == 0 && end == size {
        format!("{} bytes, {}", size, mime)
    } else {
        format!("bytes {}-{} of {}, {}", offset, end, size, mime)
    };
    let next = if end < size { format!("; more follows: call read_file with offset={}", end) } else { String::new() };
    if end < size {
        v.insert("next_offset", end as i64);
    }
    let r = if as_text.is_some() {
        let text = String::from_utf8(buf).unwrap_or_default();
        let note = if size == 0 {
            Some(format!("[{} is empty]", t.path))
        } else if offset == 0 && end == size {
            None
        } else {
            Some(format!("[{}{}]", range, next))
        };
        let r = ToolResult::text(text);
        match note {
            Some(n) => r.with_text(n),
            None => r,
        }
    } else if end - offset == size && size <= MAX_READ && is_image(mime) {
        ToolResult::text(format!("{}: image, {}", t.path, range)).with_image(&buf, mime)
    } else {
        ToolResult::text(format!("{}: binary, {}{}; base64 follows", t.path, range, next))
            .with_text(mcpwasm::base64(&buf))
    };
    Ok(r.with_structured(v))
}

fn is_image(mime: &str) -> bool {
    matches!(mime, "image/png" | "image/jpeg" | "image/gif" | "image/webp")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps() {
        let at = |s| rfc3339(UNIX_EPOCH + Duration::from_secs(s)).unwrap();
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(at(4_102_444_799), "2099-12-31T23:59:59Z");
    }

    #[test]
    fn text_detection() {
        assert_eq!(text_len(b"hello\n", false), Some(6));
        assert_eq!(text_len("héllo".as_bytes(), false), Some(6));
        assert_eq!(text_len(&"é".as_bytes()[..1], false), None);
        assert_eq!(text_len(&"aé".as_bytes()[..2], true), Some(1));
        assert_eq!(text_len(b"a\0b", false), None);
        assert_eq!(text_len(b"\x89PNG\r\n\x1a\n", false), None);
        assert_eq!(text_len(b"", false), Some(0));
    }

    #[test]
    fn mime_types() {
        assert_eq!(mime_for("/a/README.MD", true), "text/markdown");
        assert_eq!(mime_for("/a/x.png", false), "image/png");
        assert_eq!(mime_for("/a/Makefile", true), "text/plain");
        assert_eq!(mime_for("/a/blob", false), "application/octet-stream");
        assert_eq!(mime_for("/a.d/blob", false), "application/octet-stream");
    }
}

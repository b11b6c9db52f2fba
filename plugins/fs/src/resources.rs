//! The files under the mounts as `file://` resources, through the template
//! `file:///{+path}`. A folder reads as its listing.

use crate::files::{listing_text, mime_for, read_entries, text_len, MAX_LIST};
use crate::paths::{io_error, resolve};
use mcpwasm::{percent_decode, ReadRequest, ReadResult};
use std::fs;

/// Larger files are refused: read them with the read_file tool, in parts.
pub const MAX_RESOURCE: u64 = 2 << 20;

/// The absolute path in a `file://` URI: `file:///a/b`, `file://localhost/a/b`,
/// %-escapes decoded, any query or fragment dropped.
pub fn uri_path(uri: &str) -> Result<String, String> {
    let rest = uri
        .strip_prefix("file://")
        .ok_or_else(|| format!("not found: {} (this plugin serves file:// URIs only)", uri))?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return Err(format!("not found: {} (a file URI needs an absolute path: file:///home/me/notes.txt)", uri));
    }
    let rest = rest.split(|c| c == '?' || c == '#').next().unwrap_or("");
    percent_decode(rest).ok_or_else(|| format!("not found: {} (malformed %-escape in the path)", uri))
}

pub fn read(r: &ReadRequest) -> Result<ReadResult, String> {
    let uri = r.uri();
    let t = resolve(&uri_path(uri)?, &r.mounts())?;
    let md = fs::metadata(&t.path).map_err(|e| io_error("read", &t.path, &e))?;
    if md.is_dir() {
        let (entries, total, more) = read_entries(&t, MAX_LIST)?;
        return Ok(ReadResult::text(uri, "text/plain", listing_text(&t.path, &entries, total, more)));
    }
    if md.len() > MAX_RESOURCE {
        return Err(format!(
            "too large to read as a resource: {} is {} bytes (limit {}); use the read_file tool with offset and length",
            t.path,
            md.len(),
            MAX_RESOURCE
        ));
    }
    let data = fs::read(&t.path).map_err(|e| io_error("read", &t.path, &e))?;
    Ok(match text_len(&data, false) {
        Some(_) => {
            let mime = mime_for(&t.path, true);
            ReadResult::text(uri, mime, String::from_utf8(data).unwrap_or_default())
        }
        None => ReadResult::blob(uri, mime_for(&t.path, false), &data),
    })
}

#[cfg(test)]
mod tests {
    use super::uri_path;

    #[test]
    fn file_uris() {
        assert_eq!(uri_path("file:///a/b.txt").unwrap(), "/a/b.txt");
        assert_eq!(uri_path("file://localhost/a/b").unwrap(), "/a/b");
        assert_eq!(uri_path("file:///a/my%20notes.md?x=1#top").unwrap(), "/a/my notes.md");
        assert_eq!(uri_path("file:///a/%C3%A9t%C3%A9").unwrap(), "/a/été");
        for bad in ["http://x/a", "file://host/a", "file://a", "file:///a%zz"] {
            let e = uri_path(bad).unwrap_err();
            assert!(e.starts_with("not found: "), "{}: {}", bad, e);
        }
    }
}

//! mcpwasm plugin `fs`: lists, reads, searches, stats and writes files under
//! the folders the host mounts (`context.mounts`), and serves them as
//! `file://` resources. Every path is checked against the mounts before the
//! filesystem is touched, and every error says what to do next.

mod files;
mod glob;
mod paths;
mod resources;
mod search;

use mcpwasm::{Call, ResourceTemplate, Tool, ToolResult, Value};
use paths::{check_writable, io_error, resolve};
use std::fs;
use std::io::Write;

const LIST_DIR: &str = r#"{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Absolute path of a folder under the allowed roots. Leave it out to list the allowed roots themselves."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 5000, "default": 500, "description": "At most this many entries, sorted by name."}
  },
  "additionalProperties": false
}"#;

const READ_FILE: &str = r#"{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Absolute path of a file under the allowed roots."},
    "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Byte offset to start at."},
    "length": {"type": "integer", "minimum": 1, "maximum": 1048576, "default": 262144, "description": "At most this many bytes. A longer file is read in parts: the answer gives the next offset."}
  },
  "required": ["path"],
  "additionalProperties": false
}"#;

const SEARCH: &str = r#"{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Absolute path of the folder to search (recursively), under the allowed roots."},
    "pattern": {"type": "string", "default": "*", "description": "Glob on file and folder names (not paths): * is any run of characters, ? one character. Example: *.md"},
    "content": {"type": "string", "description": "Only files containing this text; the answer lists each matching line as path:line: text."},
    "ignore_case": {"type": "boolean", "default": false, "description": "Match pattern and content case-insensitively."},
    "include_hidden": {"type": "boolean", "default": false, "description": "Also search names starting with '.' (.git, .env, ...)."},
    "max_results": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100},
    "max_bytes": {"type": "integer", "minimum": 1, "maximum": 268435456, "default": 16777216, "description": "Stop after reading this many bytes of file contents."},
    "max_depth": {"type": "integer", "minimum": 0, "maximum": 64, "default": 20, "description": "How many folder levels below path to descend."}
  },
  "required": ["path"],
  "additionalProperties": false
}"#;

const STAT: &str = r#"{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Absolute path of a file or folder under the allowed roots."}
  },
  "required": ["path"],
  "additionalProperties": false
}"#;

const WRITE_FILE: &str = r#"{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Absolute path of the file to write, under a read-write root."},
    "content": {"type": "string", "description": "What to write: text, or base64 when encoding is \"base64\"."},
    "append": {"type": "boolean", "default": false, "description": "Add to the end of the file instead of replacing it."},
    "encoding": {"type": "string", "enum": ["utf-8", "base64"], "default": "utf-8"},
    "create_dirs": {"type": "boolean", "default": false, "description": "Create missing parent folders."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}"#;

const READ_ONLY: &str = r#"{"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}"#;
const WRITES: &str =
    r#"{"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}"#;

fn write_file(call: &Call) -> Result<ToolResult, String> {
    let mounts = call.mounts();
    let t = resolve(call.string("path")?, &mounts)?;
    check_writable(&t, &mounts)?;
    let append = call.opt_boolean("append")?.unwrap_or(false);
    let content = call.string("content")?;
    let data = match call.opt_string("encoding")?.unwrap_or("utf-8") {
        "utf-8" => content.as_bytes().to_vec(),
        "base64" => decode_base64(content).ok_or("content is not valid base64 (RFC 4648, with or without padding)")?,
        other => return Err(format!("encoding must be \"utf-8\" or \"base64\", got {:?}", other)),
    };
    if t.path == t.mount.path {
        return Err(format!("is a directory: {} is an allowed root; give a file path inside it", t.path));
    }
    if call.opt_boolean("create_dirs")?.unwrap_or(false) {
        let parent = t.path.rsplit_once('/').map(|(p, _)| p).unwrap_or("/");
        fs::create_dir_all(parent).map_err(|e| io_error("create the folders of", parent, &e))?;
    }
    let existed = fs::symlink_metadata(&t.path).is_ok();
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .append(append)
        .truncate(!append)
        .open(&t.path)
        .map_err(|e| io_error("write", &t.path, &e))?;
    f.write_all(&data).map_err(|e| io_error("write", &t.path, &e))?;
    f.flush().map_err(|e| io_error("write", &t.path, &e))?;
    let how = match (existed, append) {
        (false, _) => "created",
        (true, true) => "appended to",
        (true, false) => "replaced",
    };
    let v = Value::object()
        .with("path", t.path.as_str())
        .with("bytes", data.len())
        .with("append", append)
        .with("created", !existed);
    Ok(ToolResult::text(format!("{} {}: wrote {} bytes", how, t.path, data.len())).with_structured(v))
}

/// Standard base64 (RFC 4648 §4), padding optional, whitespace ignored.
pub fn decode_base64(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0);
    let mut pad = 0;
    for c in s.bytes().filter(|c| !c.is_ascii_whitespace()) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                pad += 1;
                continue;
            }
            _ => return None,
        };
        if pad > 0 {
            return None;
        }
        acc = acc << 6 | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    if pad > 2 || bits >= 6 {
        return None;
    }
    Some(out)
}

mcpwasm::plugin! {
    tools: [
        Tool::new("list_dir", "Lists a folder under the allowed roots: each entry's name, type (file, dir, symlink) \
            and size. Without a path, lists the allowed roots and whether each is read-only.", LIST_DIR, files::list_dir)
            .title("List folder").annotations(READ_ONLY),
        Tool::new("read_file", "Reads a file under the allowed roots: text as UTF-8, other files as base64 (images \
            as images), with a MIME type guessed from the name. Reads at most 256 KiB by default; pass offset and \
            length for the rest.", READ_FILE, files::read_file)
            .title("Read file").annotations(READ_ONLY),
        Tool::new("search", "Searches a folder recursively for files and folders whose name matches a glob \
            (*, ?), and optionally for lines containing a text. Bounded: at most max_results matches and max_bytes \
            read; unreadable entries are skipped and reported.", SEARCH, search::search)
            .title("Search files").annotations(READ_ONLY),
        Tool::new("stat", "Describes a file or folder under the allowed roots: type, size, modification time, and \
            whether its root is read-only.", STAT, files::stat)
            .title("File info").annotations(READ_ONLY),
        Tool::new("write_file", "Writes (or appends to) a file under a read-write root. Replaces an existing \
            file unless append is set.", WRITE_FILE, write_file)
            .title("Write file").annotations(WRITES),
    ],
}

mcpwasm::resources! {
    resources: [],
    templates: [
        ResourceTemplate::new("file:///{+path}", "file", resources::read)
            .title("Files under the allowed roots")
            .description("Any file or folder under the folders mounted for this session, by absolute path: \
                file:///home/me/notes.txt. Text files read as text, others as base64 blobs, folders as a \
                listing. Files over 2 MiB are refused: use the read_file tool."),
    ],
}

#[cfg(test)]
mod tests {
    use super::decode_base64;

    #[test]
    fn base64_round_trip() {
        for raw in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
            let enc = mcpwasm::base64(raw.as_bytes());
            assert_eq!(decode_base64(&enc).as_deref(), Some(raw.as_bytes()), "{}", enc);
            assert_eq!(decode_base64(enc.trim_end_matches('=')).as_deref(), Some(raw.as_bytes()));
        }
        assert_eq!(decode_base64("Zm9v\nYmFy").as_deref(), Some(&b"foobar"[..]));
        for bad in ["Zm9v!", "Zg=a", "Z", "Zm9vY===", "Zg==="] {
            assert_eq!(decode_base64(bad), None, "{}", bad);
        }
    }
}

//! Which paths a call may touch, checked against `context.mounts` before the
//! filesystem is, and clear messages for the errors the sandbox returns.

use mcpwasm::Mount;
use std::io;

/// A path the call may use: lexically normalised, with the mount it is under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub path: String,
    pub mount: Mount,
}

/// Collapses `//`, `.` and `..` in an absolute path without touching the
/// filesystem. `..` at the root stays at the root, as the kernel does.
pub fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Whether `path` is `root` or inside it (whole components: /a/bc is not in /a/b).
pub fn is_under(path: &str, root: &str) -> bool {
    let root = root.trim_end_matches('/');
    root.is_empty() || path == root || (path.starts_with(root) && path.as_bytes().get(root.len()) == Some(&b'/'))
}

/// "/a (read-only), /b", or why there is nothing.
pub fn describe(mounts: &[Mount]) -> String {
    if mounts.is_empty() {
        return "none, no folders are mounted for this request: the server's operator granted none, \
                or the client's roots exclude them"
            .into();
    }
    let list: Vec<String> =
        mounts.iter().map(|m| if m.read_only { format!("{} (read-only)", m.path) } else { m.path.clone() }).collect();
    list.join(", ")
}

/// Checks that `path` is absolute and under one of `mounts`, and returns it
/// normalised with the most specific mount that holds it.
pub fn resolve(path: &str, mounts: &[Mount]) -> Result<Target, String> {
    if path.is_empty() {
        return Err(format!("path is empty: give an absolute path under the allowed roots ({})", describe(mounts)));
    }
    if path.contains('\0') {
        return Err(format!("path contains a NUL byte: {:?}", path));
    }
    if !path.starts_with('/') {
        return Err(format!(
            "path must be absolute: {} (allowed roots: {}; call list_dir without a path to see them)",
            path,
            describe(mounts)
        ));
    }
    let norm = normalize(path);
    let best = mounts.iter().filter(|m| is_under(&norm, &normalize(&m.path))).max_by_key(|m| normalize(&m.path).len());
    match best {
        Some(m) => Ok(Target { path: norm, mount: Mount { path: normalize(&m.path), read_only: m.read_only } }),
        None => {
            let resolved = if norm == path { String::new() } else { format!("resolves to {}; ", norm) };
            Err(format!("path is outside the allowed roots: {} ({}allowed: {})", path, resolved, describe(mounts)))
        }
    }
}

/// Refuses a write under a read-only mount before touching the filesystem.
pub fn check_writable(t: &Target, mounts: &[Mount]) -> Result<(), String> {
    if !t.mount.read_only {
        return Ok(());
    }
    let rw: Vec<&str> = mounts.iter().filter(|m| !m.read_only).map(|m| m.path.as_str()).collect();
    let rw = if rw.is_empty() { "none".to_string() } else { rw.join(", ") };
    Err(format!("read-only: {} is under {}, which is mounted read-only (writable roots: {})", t.path, t.mount.path, rw))
}

/// errno values as `io::Error::raw_os_error` reports them: WASI preview 1's
/// numbering in the guest, Linux's in native tests.
#[cfg(target_os = "wasi")]
mod errno {
    pub const ACCES: i32 = 2;
    pub const EXIST: i32 = 20;
    pub const INVAL: i32 = 28;
    pub const IO: i32 = 29;
    pub const ISDIR: i32 = 31;
    pub const LOOP: i32 = 32;
    pub const NAMETOOLONG: i32 = 37;
    pub const NOENT: i32 = 44;
    pub const NOSPC: i32 = 51;
    pub const NOSYS: i32 = 52;
    pub const NOTDIR: i32 = 54;
    pub const NOTEMPTY: i32 = 55;
    pub const NOTSUP: i32 = 58;
    pub const PERM: i32 = 63;
    pub const ROFS: i32 = 69;
    pub const NOTCAPABLE: i32 = 76;
}
#[cfg(not(target_os = "wasi"))]
mod errno {
    pub const PERM: i32 = 1;
    pub const NOENT: i32 = 2;
    pub const IO: i32 = 5;
    pub const ACCES: i32 = 13;
    pub const EXIST: i32 = 17;
    pub const NOTDIR: i32 = 20;
    pub const ISDIR: i32 = 21;
    pub const INVAL: i32 = 22;
    pub const NOSPC: i32 = 28;
    pub const ROFS: i32 = 30;
    pub const NAMETOOLONG: i32 = 36;
    pub const NOSYS: i32 = 38;
    pub const NOTEMPTY: i32 = 39;
    pub const LOOP: i32 = 40;
    pub const NOTSUP: i32 = 95;
    pub const NOTCAPABLE: i32 = -1;
}

/// A message the model can act on for an error the filesystem returned while
/// doing `op` ("read", "list", "write", ...) on `path`. Never a bare errno.
pub fn io_error(op: &str, path: &str, e: &io::Error) -> String {
    use errno::*;
    match e.raw_os_error() {
        Some(PERM) | Some(NOTCAPABLE) => format!(
            "permission denied by the sandbox: {} (it leads outside the allowed roots, through a symlink or \
             link, or is not a regular file or folder)",
            path
        ),
        Some(NOENT) => format!("not found: {}", path),
        Some(ROFS) => format!("read-only: {} is on a read-only mount", path),
        Some(ACCES) => format!("permission denied: the host's file permissions do not allow {} of {}", op, path),
        Some(NOTDIR) => format!("not a directory: {} (a part of the path is a file)", path),
        Some(ISDIR) => format!("is a directory: {} (use list_dir for folders)", path),
        Some(EXIST) => format!("already exists: {}", path),
        Some(NOTEMPTY) => format!("directory not empty: {}", path),
        Some(LOOP) => format!("too many levels of symbolic links: {}", path),
        Some(NAMETOOLONG) => format!("name too long: {}", path),
        Some(NOSPC) => format!("no space left on the device holding {}", path),
        Some(NOSYS) | Some(NOTSUP) => format!("cannot {} {}: not supported by the host's filesystem", op, path),
        Some(INVAL) => format!("cannot {} {}: invalid argument", op, path),
        Some(IO) => format!("cannot {} {}: the host's filesystem reported an input/output error", op, path),
        Some(n) => format!("cannot {} {}: {:?} (errno {})", op, path, e.kind(), n),
        None => match e.kind() {
            io::ErrorKind::NotFound => format!("not found: {}", path),
            io::ErrorKind::PermissionDenied => format!("permission denied: {}", path),
            // wasi-libc found no preopened folder for the path.
            _ if e.to_string().contains("pre-opened") => {
                format!("not found: {} (no mounted folder holds it in this request)", path)
            }
            _ => format!("cannot {} {}: {}", op, path, e),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(path: &str, ro: bool) -> Mount {
        Mount { path: path.into(), read_only: ro }
    }

    #[test]
    fn normalizes() {
        for (input, want) in [
            ("/", "/"),
            ("/a/b", "/a/b"),
            ("/a//b/", "/a/b"),
            ("/a/./b/.", "/a/b"),
            ("/a/b/../c", "/a/c"),
            ("/a/../../..", "/"),
            ("/a/b/../../outside", "/outside"),
        ] {
            assert_eq!(normalize(input), want, "{}", input);
        }
    }

    #[test]
    fn under() {
        assert!(is_under("/a/b", "/a/b"));
        assert!(is_under("/a/b/c", "/a/b"));
        assert!(is_under("/a/b/c", "/a/b/"));
        assert!(!is_under("/a/bc", "/a/b"));
        assert!(!is_under("/a", "/a/b"));
        assert!(is_under("/anything", "/"));
    }

    #[test]
    fn resolves_against_mounts() {
        let ms = [m("/data", true), m("/data/scratch", false), m("/home/me/", false)];
        let t = resolve("/data/scratch/x/../y.txt", &ms).unwrap();
        assert_eq!(t.path, "/data/scratch/y.txt");
        assert_eq!(t.mount, m("/data/scratch", false));
        assert_eq!(resolve("/data/a", &ms).unwrap().mount, m("/data", true));
        assert_eq!(resolve("/home/me", &ms).unwrap().mount, m("/home/me", false));
        assert_eq!(resolve("/data/./", &ms).unwrap().path, "/data");

        let e = resolve("/etc/passwd", &ms).unwrap_err();
        assert_eq!(
            e,
            "path is outside the allowed roots: /etc/passwd (allowed: /data (read-only), /data/scratch, /home/me/)"
        );
        let e = resolve("/data/../etc/passwd", &ms).unwrap_err();
        assert!(
            e.starts_with(
                "path is outside the allowed roots: /data/../etc/passwd (resolves to /etc/passwd; allowed: /data "
            ),
            "{}",
            e
        );
        assert!(!resolve("/database", &ms).is_ok());
        let e = resolve("notes.txt", &ms).unwrap_err();
        assert!(e.starts_with("path must be absolute: notes.txt (allowed roots: /data (read-only)"), "{}", e);
        assert!(resolve("", &ms).unwrap_err().starts_with("path is empty"));
        assert!(resolve("/data/a\0b", &ms).unwrap_err().contains("NUL"));
    }

    #[test]
    fn no_mounts() {
        let e = resolve("/tmp/x", &[]).unwrap_err();
        assert!(
            e.starts_with("path is outside the allowed roots: /tmp/x (allowed: none, no folders are mounted"),
            "{}",
            e
        );
    }

    #[test]
    fn writability() {
        let ms = [m("/ro", true), m("/rw", false)];
        assert!(check_writable(&resolve("/rw/a", &ms).unwrap(), &ms).is_ok());
        let e = check_writable(&resolve("/ro/a", &ms).unwrap(), &ms).unwrap_err();
        assert_eq!(e, "read-only: /ro/a is under /ro, which is mounted read-only (writable roots: /rw)");
        let e = check_writable(&resolve("/ro/a", &ms[..1]).unwrap(), &ms[..1]).unwrap_err();
        assert!(e.ends_with("(writable roots: none)"), "{}", e);
    }

    #[test]
    fn error_messages() {
        let raw = |n| io_error("read", "/p", &io::Error::from_raw_os_error(n));
        assert!(raw(errno::PERM).starts_with("permission denied by the sandbox: /p"));
        assert_eq!(raw(errno::NOENT), "not found: /p");
        assert_eq!(raw(errno::ROFS), "read-only: /p is on a read-only mount");
        assert!(raw(errno::IO).contains("input/output error"));
        for n in [errno::PERM, errno::IO, errno::NOSYS, 12345] {
            assert!(!raw(n).contains("os error"), "{}", raw(n));
        }
        let e = io::Error::new(io::ErrorKind::Other, "failed to find a pre-opened file descriptor");
        assert!(io_error("read", "/p", &e).starts_with("not found: /p"));
    }
}

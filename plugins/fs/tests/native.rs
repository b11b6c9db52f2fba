//! The tools and the resource template run natively on real temp folders
//! (no sandbox here: the escape checks are in host/server/fsplugin_test.go).

use fs::{mcpwasm_resource_templates, mcpwasm_resources, mcpwasm_tools};
use mcpwasm::testing as t;
use mcpwasm::Value;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

static N: AtomicUsize = AtomicUsize::new(0);

/// A fresh temp dir, removed when dropped: its read-only and read-write
/// roots, and the call context that mounts them.
struct Tree {
    base: PathBuf,
    ro: String,
    rw: String,
    ctx: Value,
}

impl Tree {
    /// Calls `tool` with `args` under the tree's mounts.
    fn call(&self, tool: &str, args: String) -> Value {
        t::call_tool_with(&mcpwasm_tools(), tool, &args, self.ctx.clone()).output
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

/// ro/ (a.txt, sub/b.md, bin.dat, .hidden/h.txt) and rw/, under a fresh temp dir.
fn tree() -> Tree {
    let n = N.fetch_add(1, Ordering::SeqCst);
    let base = std::env::temp_dir().join(format!("mcpwasm-fs-{}-{}", std::process::id(), n));
    let _ = std::fs::remove_dir_all(&base);
    let p = |s: &str| base.join(s);
    for d in ["ro/sub", "ro/.hidden", "rw"] {
        std::fs::create_dir_all(p(d)).unwrap();
    }
    std::fs::write(p("ro/a.txt"), "alpha\nbeta needle\ngamma\n").unwrap();
    std::fs::write(p("ro/sub/b.md"), "# B\nNeedle here\n").unwrap();
    std::fs::write(p("ro/bin.dat"), [0u8, 1, 2, 255, b'n']).unwrap();
    std::fs::write(p("ro/.hidden/h.txt"), "needle").unwrap();
    let s = |b: PathBuf| b.to_string_lossy().into_owned();
    let (ro, rw) = (s(p("ro")), s(p("rw")));
    let m = |p: &str, r: bool| Value::object().with("path", p).with("read_only", r);
    let ctx = Value::object().with("mounts", vec![m(&ro, true), m(&rw, false)]);
    Tree { base, ro, rw, ctx }
}

fn text(v: &Value) -> String {
    v["content"].as_array().unwrap().iter().filter_map(|c| c["text"].as_str()).collect::<Vec<_>>().join("\n")
}

fn ok(v: &Value) -> String {
    assert!(v.get("isError").is_none(), "unexpected error: {}", text(v));
    text(v)
}

fn err(v: &Value) -> String {
    assert_eq!(v["isError"].as_bool(), Some(true), "expected an error: {}", text(v));
    text(v)
}

#[test]
fn lists() {
    let tr = tree();
    let (ro, rw) = (&tr.ro, &tr.rw);
    let v = tr.call("list_dir", format!(r#"{{"path":"{}"}}"#, ro));
    let s = ok(&v);
    assert!(s.contains("file\t24\ta.txt\n") && s.contains("dir\t-\tsub/\n") && s.contains(": 4 entries\n"), "{}", s);
    assert_eq!(v["structuredContent"]["entries"][1]["name"].as_str(), Some("a.txt"));
    let v = tr.call("list_dir", format!(r#"{{"path":"{}","limit":2}}"#, ro));
    assert!(ok(&v).contains("truncated: showing the first 2 of 4 entries"), "{}", text(&v));
    let s = ok(&tr.call("list_dir", "{}".into()));
    assert!(s.contains(&format!("read-only\t{}", ro)) && s.contains(&format!("read-write\t{}", rw)), "{}", s);
    let s = ok(&t::call_tool_with(&mcpwasm_tools(), "list_dir", "{}", Value::object()).output);
    assert!(s.contains("no folders are mounted"), "{}", s);
    let s = err(&tr.call("list_dir", format!(r#"{{"path":"{}/a.txt"}}"#, ro)));
    assert!(s.starts_with("not a directory: "), "{}", s);
    let s = err(&tr.call("list_dir", format!(r#"{{"path":"{}/nope"}}"#, ro)));
    assert_eq!(s, format!("not found: {}/nope", ro));
}

#[test]
fn outside_and_relative() {
    let tr = tree();
    let (ro, rw) = (&tr.ro, &tr.rw);
    for tool in ["list_dir", "read_file", "search", "stat"] {
        let s = err(&tr.call(tool, r#"{"path":"/etc"}"#.into()));
        assert_eq!(s, format!("path is outside the allowed roots: /etc (allowed: {} (read-only), {})", ro, rw));
        let s = err(&tr.call(tool, format!(r#"{{"path":"{}/../../etc"}}"#, ro)));
        assert!(s.starts_with("path is outside the allowed roots: "), "{}", s);
        let s = err(&tr.call(tool, r#"{"path":"a.txt"}"#.into()));
        assert!(s.starts_with("path must be absolute: a.txt"), "{}", s);
    }
}

#[test]
fn reads() {
    let tr = tree();
    let (ro, rw) = (&tr.ro, &tr.rw);
    let v = tr.call("read_file", format!(r#"{{"path":"{}/a.txt"}}"#, ro));
    assert_eq!(ok(&v), "alpha\nbeta needle\ngamma\n");
    assert_eq!(v["structuredContent"]["mimeType"].as_str(), Some("text/plain"));
    let v = tr.call("read_file", format!(r#"{{"path":"{}/a.txt","offset":6,"length":4}}"#, ro));
    assert_eq!(v["content"][0]["text"].as_str(), Some("beta"));
    assert!(ok(&v).contains("bytes 6-10 of 24, text/plain; more follows: call read_file with offset=10"));
    assert_eq!(v["structuredContent"]["next_offset"].as_i64(), Some(10));
    let v = tr.call("read_file", format!(r#"{{"path":"{}/bin.dat"}}"#, ro));
    assert_eq!(v["content"][1]["text"].as_str(), Some("AAEC/24="));
    assert_eq!(v["structuredContent"]["encoding"].as_str(), Some("base64"));
    std::fs::write(format!("{}/empty", rw), "").unwrap();
    assert!(ok(&tr.call("read_file", format!(r#"{{"path":"{}/empty"}}"#, rw))).ends_with("/empty is empty]"));
    let s = err(&tr.call("read_file", format!(r#"{{"path":"{}/sub"}}"#, ro)));
    assert!(s.starts_with("is a directory: "), "{}", s);
    let s = err(&tr.call("read_file", format!(r#"{{"path":"{}/a.txt","offset":99}}"#, ro)));
    assert!(s.contains("past the end"), "{}", s);
}

#[test]
fn stats() {
    let tr = tree();
    let (ro, rw) = (&tr.ro, &tr.rw);
    let v = tr.call("stat", format!(r#"{{"path":"{}/a.txt"}}"#, ro));
    let s = ok(&v);
    assert!(s.contains("type: file\nsize: 24 bytes\nmodified: 20"), "{}", s);
    assert_eq!(v["structuredContent"]["read_only"].as_bool(), Some(true));
    let v = tr.call("stat", format!(r#"{{"path":"{}"}}"#, rw));
    assert_eq!(v["structuredContent"]["type"].as_str(), Some("dir"));
    assert_eq!(v["structuredContent"]["read_only"].as_bool(), Some(false));
}

#[test]
fn searches() {
    let tr = tree();
    let ro = &tr.ro;
    let v = tr.call("search", format!(r#"{{"path":"{}","pattern":"*.md"}}"#, ro));
    assert!(ok(&v).contains(&format!("file\t16\t{}/sub/b.md", ro)), "{}", text(&v));
    assert_eq!(v["structuredContent"]["matches"].as_array().map(|a| a.len()), Some(1));
    let v = tr.call("search", format!(r#"{{"path":"{}","content":"needle"}}"#, ro));
    let s = ok(&v);
    assert!(s.contains(&format!("{}/a.txt:2: beta needle", ro)), "{}", s);
    assert!(!s.contains("b.md") && !s.contains("h.txt"), "{}", s);
    assert!(s.contains("skipped 1 binary files") && s.contains("skipped 1 hidden entries"), "{}", s);
    let s = ok(&tr
        .call("search", format!(r#"{{"path":"{}","content":"needle","ignore_case":true,"include_hidden":true}}"#, ro)));
    assert!(s.contains("b.md:2: Needle here") && s.contains(".hidden/h.txt:1: needle"), "{}", s);
    let v = tr.call("search", format!(r#"{{"path":"{}","max_results":1}}"#, ro));
    assert!(ok(&v).contains("truncated: reached max_results=1"), "{}", text(&v));
    let s = ok(&tr.call("search", format!(r#"{{"path":"{}","content":"a","max_bytes":3}}"#, ro)));
    assert!(s.contains("truncated: read max_bytes=3 bytes"), "{}", s);
    let s = ok(&tr.call("search", format!(r#"{{"path":"{}","pattern":"nothing*"}}"#, ro)));
    assert!(s.starts_with("no matches for names matching \"nothing*\""), "{}", s);
}

#[test]
fn writes() {
    let tr = tree();
    let (ro, rw) = (&tr.ro, &tr.rw);
    let s = err(&tr.call("write_file", format!(r#"{{"path":"{}/x.txt","content":"x"}}"#, ro)));
    assert_eq!(
        s,
        format!("read-only: {}/x.txt is under {}, which is mounted read-only (writable roots: {})", ro, ro, rw)
    );
    assert!(!std::path::Path::new(&format!("{}/x.txt", ro)).exists());
    let s = err(&tr.call("write_file", r#"{"path":"/tmp/evil.txt","content":"x"}"#.into()));
    assert!(s.starts_with("path is outside the allowed roots: /tmp/evil.txt"), "{}", s);
    let s = ok(&tr.call("write_file", format!(r#"{{"path":"{}/n.txt","content":"one\n"}}"#, rw)));
    assert_eq!(s, format!("created {}/n.txt: wrote 4 bytes", rw));
    ok(&tr.call("write_file", format!(r#"{{"path":"{}/n.txt","content":"two\n","append":true}}"#, rw)));
    assert_eq!(std::fs::read_to_string(format!("{}/n.txt", rw)).unwrap(), "one\ntwo\n");
    ok(&tr.call(
        "write_file",
        format!(r#"{{"path":"{}/d/e/f.bin","content":"AAEC","encoding":"base64","create_dirs":true}}"#, rw),
    ));
    assert_eq!(std::fs::read(format!("{}/d/e/f.bin", rw)).unwrap(), vec![0, 1, 2]);
    let s = err(&tr.call("write_file", format!(r#"{{"path":"{}/no/such/dir.txt","content":"x"}}"#, rw)));
    assert!(s.starts_with("not found: "), "{}", s);
    let s = err(&tr.call("write_file", format!(r#"{{"path":"{}","content":"x"}}"#, rw)));
    assert!(s.starts_with("is a directory: "), "{}", s);
}

#[test]
fn resources() {
    let tr = tree();
    let ro = &tr.ro;
    let (r, tp) = (mcpwasm_resources(), mcpwasm_resource_templates());
    assert_eq!(t::list_resources(&r).unwrap().to_json(), r#"{"resources":[]}"#);
    let l = t::list_resource_templates(&tp).unwrap();
    assert_eq!(l["resourceTemplates"][0]["uriTemplate"].as_str(), Some("file:///{+path}"));
    let v = t::read_resource_with(&r, &tp, &format!("file://{}/a.txt", ro), tr.ctx.clone()).unwrap();
    assert_eq!(v["contents"][0]["text"].as_str(), Some("alpha\nbeta needle\ngamma\n"));
    assert_eq!(v["contents"][0]["mimeType"].as_str(), Some("text/plain"));
    let v = t::read_resource_with(&r, &tp, &format!("file://{}/bin.dat", ro), tr.ctx.clone()).unwrap();
    assert_eq!(v["contents"][0]["blob"].as_str(), Some("AAEC/24="));
    let v = t::read_resource_with(&r, &tp, &format!("file://{}/sub", ro), tr.ctx.clone()).unwrap();
    assert!(v["contents"][0]["text"].as_str().unwrap().contains("file\t16\tb.md"));
    let e = t::read_resource_with(&r, &tp, &format!("file://{}/nope", ro), tr.ctx.clone()).unwrap_err();
    assert_eq!(e, format!("not found: {}/nope", ro));
    let e = t::read_resource_with(&r, &tp, "file:///etc/passwd", tr.ctx.clone()).unwrap_err();
    assert!(e.starts_with("path is outside the allowed roots: /etc/passwd"), "{}", e);
    let e = t::read_resource(&r, &tp, &format!("file://{}/a.txt", ro)).unwrap_err();
    assert!(e.contains("no folders are mounted"), "{}", e);
}

#[test]
fn search_line_numbers_across_chunks() {
    let tr = tree();
    let ro = &tr.ro;
    let mut big = String::new();
    for i in 1..=10000 {
        big.push_str(match i {
            7777 => "here is the Target line\n",
            9999 => "Été TARGET again\n",
            _ => "filler line of some length to cross the 64 KiB chunks\n",
        });
    }
    std::fs::write(format!("{}/big.txt", ro), big).unwrap();
    let s = ok(&tr.call("search", format!(r#"{{"path":"{}","pattern":"big.txt","content":"Target"}}"#, ro)));
    assert!(s.contains("/big.txt:7777: here is the Target line\n") && !s.contains(":9999:"), "{}", s);
    let s = ok(
        &tr.call("search", format!(r#"{{"path":"{}","pattern":"big.txt","content":"target","ignore_case":true}}"#, ro))
    );
    assert!(s.contains("/big.txt:7777: ") && s.contains("/big.txt:9999: Été TARGET again"), "{}", s);
    let s =
        ok(&tr
            .call("search", format!(r#"{{"path":"{}","pattern":"big.txt","content":"été","ignore_case":true}}"#, ro)));
    assert!(s.contains("/big.txt:9999: Été TARGET again"), "{}", s);
    let s = ok(&tr.call("search", format!(r#"{{"path":"{}","pattern":"big.txt","content":"filler"}}"#, ro)));
    assert!(s.contains("/big.txt:20: filler") && s.contains("9978 more matching lines not shown"), "{}", s);
}

use mcpwasm::json::{parse, parse_bytes, parse_with_depth, DEFAULT_MAX_DEPTH};
use mcpwasm::Value;

fn s(text: &str) -> String {
    match parse(text) {
        Ok(Value::String(s)) => s,
        other => panic!("{} -> {:?}", text, other),
    }
}

fn err(text: &str) -> String {
    match parse(text) {
        Ok(v) => panic!("{:?} parsed as {:?}, want an error", text, v),
        Err(e) => e.to_string(),
    }
}

#[test]
fn scalars() {
    assert_eq!(parse("null").unwrap(), Value::Null);
    assert_eq!(parse(" true ").unwrap(), Value::Bool(true));
    assert_eq!(parse("\n\tfalse\r\n").unwrap(), Value::Bool(false));
    assert_eq!(parse("0").unwrap(), Value::Int(0));
    assert_eq!(parse("-12").unwrap(), Value::Int(-12));
    assert_eq!(parse("9223372036854775807").unwrap(), Value::Int(i64::MAX));
    assert_eq!(parse("-9223372036854775808").unwrap(), Value::Int(i64::MIN));
    assert_eq!(parse("9223372036854775808").unwrap(), Value::Float(9223372036854775808.0));
    assert_eq!(parse("1.5").unwrap(), Value::Float(1.5));
    assert_eq!(parse("-0.25e2").unwrap(), Value::Float(-25.0));
    assert_eq!(parse("1E+3").unwrap(), Value::Float(1000.0));
    assert_eq!(parse("2e-3").unwrap(), Value::Float(0.002));
    assert_eq!(parse("0.1").unwrap(), Value::Float(0.1));
}

#[test]
fn string_escapes() {
    assert_eq!(s(r#""plain""#), "plain");
    assert_eq!(s(r#""a\"b\\c\/d""#), "a\"b\\c/d");
    assert_eq!(s(r#""\b\f\n\r\t""#), "\u{8}\u{c}\n\r\t");
    assert_eq!(s(r#""\u0041\u00e9\u20AC""#), "Aé€");
    assert_eq!(s(r#""\u0000""#), "\u{0}");
    // A surrogate pair is one character outside the BMP.
    assert_eq!(s(r#""\ud83d\ude00""#), "😀");
    assert_eq!(s(r#""x\uD834\uDD1Ey""#), "x𝄞y");
    // Raw UTF-8 passes through unchanged.
    assert_eq!(s("\"héllo wörld 😀 日本\""), "héllo wörld 😀 日本");
    assert_eq!(s(r#""""#), "");
}

#[test]
fn invalid_strings() {
    assert!(err(r#""abc"#).contains("unterminated string"));
    assert!(err(r#""a\qb""#).contains("invalid escape"));
    assert!(err(r#""\u12""#).contains("hex digits"));
    assert!(err(r#""\u12G4""#).contains("hex digits"));
    assert!(err(r#""\ud83d""#).contains("unpaired surrogate"));
    assert!(err(r#""\ud83d\u0041""#).contains("unpaired surrogate"));
    assert!(err(r#""\ude00""#).contains("unpaired surrogate"));
    assert!(err("\"tab\there\"").contains("control character"));
    assert!(err("\"line\nbreak\"").contains("control character"));
    assert!(parse_bytes(b"\"\xff\"").unwrap_err().to_string().contains("invalid UTF-8"));
}

#[test]
fn invalid_numbers() {
    for bad in ["01", "-", "1.", ".5", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity", "1.2.3", "--1"] {
        let e = err(bad);
        assert!(!e.is_empty(), "{}", bad);
    }
    assert!(err("1e400").contains("number out of range"));
    assert!(err("-1e400").contains("number out of range"));
}

#[test]
fn invalid_documents() {
    assert!(err("").contains("unexpected end of input"));
    assert!(err("   ").contains("unexpected end of input"));
    assert!(err("[1,2").contains("end of input"));
    assert!(err("[1,]").contains("expected a JSON value"));
    assert!(err("[1 2]").contains("expected ',' or ']'"));
    assert!(err("{\"a\" 1}").contains("expected ':'"));
    assert!(err("{\"a\":1,}").contains("expected a string key"));
    assert!(err("{a:1}").contains("expected a string key"));
    assert!(err("{'a':1}").contains("expected a string key"));
    assert!(err("{\"a\":1 \"b\":2}").contains("expected ',' or '}'"));
    assert!(err("tru").contains("expected a JSON value"));
    assert!(err("nul").contains("expected a JSON value"));
    assert!(err("true false").contains("after the JSON value"));
    assert!(err("{} x").contains("after the JSON value"));
    assert!(err("[1] // comment").contains("after the JSON value"));
    // The offset points at the problem.
    let e = parse("[1, 2, x]").unwrap_err();
    assert_eq!(e.offset, 7);
}

#[test]
fn depth_limit() {
    let nest = |n: usize| "[".repeat(n) + &"]".repeat(n);
    assert!(parse(&nest(DEFAULT_MAX_DEPTH)).is_ok());
    assert!(err(&nest(DEFAULT_MAX_DEPTH + 1)).contains("nesting deeper than 128"));
    let objs = |n: usize| "{\"a\":".repeat(n) + "1" + &"}".repeat(n);
    assert!(parse(&objs(DEFAULT_MAX_DEPTH)).is_ok());
    assert!(parse(&objs(DEFAULT_MAX_DEPTH + 1)).is_err());
    assert!(parse_with_depth("[[1]]", 1).is_err());
    assert!(parse_with_depth("[[1]]", 2).is_ok());
    assert!(parse_with_depth("1", 0).is_ok());
    // Depth is nesting, not count: many siblings are fine.
    assert!(parse_with_depth(&format!("[{}]", vec!["[]"; 10_000].join(",")), 2).is_ok());
    // A very deep document fails cleanly instead of overflowing the stack.
    assert!(parse(&"[".repeat(1_000_000)).is_err());
}

#[test]
fn nesting_and_access() {
    let v = parse(r#" { "a" : [1, 2.5, "x", null, {"b": true}], "c": {}, "d": [] } "#).unwrap();
    assert_eq!(v["a"][0].as_i64(), Some(1));
    assert_eq!(v["a"][1].as_f64(), Some(2.5));
    assert_eq!(v["a"][2].as_str(), Some("x"));
    assert!(v["a"][3].is_null());
    assert_eq!(v["a"][4]["b"].as_bool(), Some(true));
    assert!(v["missing"]["deeper"][3].is_null());
    assert_eq!(v["c"].as_object().map(|o| o.len()), Some(0));
    assert_eq!(v["d"].as_array().map(|a| a.len()), Some(0));
    // The last of repeated keys wins.
    assert_eq!(parse(r#"{"k":1,"k":2}"#).unwrap()["k"].as_i64(), Some(2));
    assert_eq!(Value::Float(3.0).as_i64(), Some(3));
    assert_eq!(Value::Float(3.5).as_i64(), None);
}

#[test]
fn serialize() {
    assert_eq!(Value::Null.to_json(), "null");
    assert_eq!(Value::from("a\"b\\c\n\t\u{1}\u{8}\u{c}é😀").to_json(), r#""a\"b\\c\n\t\u0001\b\fé😀""#);
    assert_eq!(Value::from(-5i64).to_json(), "-5");
    assert_eq!(Value::from(0.1).to_json(), "0.1");
    assert_eq!(Value::from(2.0).to_json(), "2");
    assert_eq!(Value::from(1e300).to_json(), "1e300");
    assert_eq!(Value::from(1.5e-9).to_json(), "1.5e-9");
    assert_eq!(Value::from(f64::NAN).to_json(), "null");
    assert_eq!(Value::from(f64::INFINITY).to_json(), "null");
    let v = Value::object().with("b", 1).with("a", vec![Value::Null, true.into()]).with("b", 2);
    assert_eq!(v.to_json(), r#"{"b":2,"a":[null,true]}"#);
    assert_eq!(Value::from(None::<i64>).to_json(), "null");
    assert_eq!(Value::from(Some("x")).to_json(), r#""x""#);
}

#[test]
fn round_trip() {
    let docs = [
        r#"{"name":"convert","arguments":{"value":-1.25e-7,"from":"km","to":"mi","n":[1,2,3]}}"#,
        r#"["\u0000\u001f","\"\\/","😀","\ud83d\ude00",1.7976931348623157e308,5e-324,-0.5]"#,
        r#"{"":{"":[[],{}]},"x":false}"#,
    ];
    for d in docs {
        let v = parse(d).unwrap();
        let again = parse(&v.to_json()).unwrap();
        assert_eq!(v, again, "{}", d);
    }
    for f in [0.1, 1.0 / 3.0, 123456.789, 1e16, 1e17, 2.5e-6, 5e-324, f64::MAX, -f64::MIN_POSITIVE] {
        assert_eq!(parse(&Value::Float(f).to_json()).unwrap().as_f64(), Some(f), "{}", f);
    }
}

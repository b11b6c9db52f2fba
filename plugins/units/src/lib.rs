//! mcpwasm plugin `units`: converts between units of length, mass,
//! temperature, volume, data size and time.

mod table;

use mcpwasm::{Call, Tool, ToolResult, Value};
use table::{format_sig, lookup, Kind, KINDS, UNITS};

const CONVERT_SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "value": {"type": "number", "description": "The quantity to convert, expressed in the `from` unit."},
    "from": {"type": "string", "minLength": 1, "maxLength": 40,
             "description": "Unit of `value`: a symbol or name, e.g. km, mi, ft, kg, lb, C, F, K, l, gal, cup, MB, GiB, Mbit, ms, h, day. Case is ignored unless it matters (MB = megabyte, Mb = megabit)."},
    "to": {"type": "string", "minLength": 1, "maxLength": 40,
           "description": "Unit to convert to; it must measure the same quantity as `from`."},
    "precision": {"type": "integer", "minimum": 1, "maximum": 17, "default": 10,
                  "description": "Significant digits in the text answer. structuredContent.result always has up to 15."}
  },
  "required": ["value", "from", "to"],
  "additionalProperties": false
}"#;

const CONVERT_OUTPUT: &str = r#"{
  "type": "object",
  "properties": {
    "value": {"type": "number"},
    "from": {"type": "string", "description": "canonical symbol"},
    "to": {"type": "string", "description": "canonical symbol"},
    "result": {"type": "number"},
    "kind": {"type": "string", "enum": ["length", "mass", "temperature", "volume", "data", "time"]}
  },
  "required": ["value", "from", "to", "result", "kind"]
}"#;

const LIST_SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "kind": {"type": "string", "enum": ["length", "mass", "temperature", "volume", "data", "time"],
             "description": "Only list units of this kind."}
  },
  "additionalProperties": false
}"#;

const READ_ONLY: &str = r#"{"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}"#;

fn convert(call: &Call) -> Result<ToolResult, String> {
    let value = call.number("value")?;
    let from = lookup(call.string("from")?)?;
    let to = lookup(call.string("to")?)?;
    let precision = call.opt_integer("precision")?.unwrap_or(10);
    if !(1..=17).contains(&precision) {
        return Err(format!("precision must be between 1 and 17, got {}", precision));
    }
    let result = table::convert(value, from, to)?;
    let text = format!(
        "{} {} ({}) = {} {} ({})",
        Value::from(value),
        from.symbol,
        from.name,
        format_sig(result, precision as usize),
        to.symbol,
        to.name
    );
    let structured = Value::object()
        .with("value", value)
        .with("from", from.symbol)
        .with("to", to.symbol)
        .with("result", result)
        .with("kind", from.kind.name());
    Ok(ToolResult::text(text).with_structured(structured))
}

fn list_units(call: &Call) -> Result<ToolResult, String> {
    let only = call.opt_string("kind")?;
    let kinds: Vec<Kind> = KINDS.iter().copied().filter(|k| only.map_or(true, |o| o == k.name())).collect();
    if kinds.is_empty() {
        return Err(format!(
            "unknown kind {:?}; use one of length, mass, temperature, volume, data, time",
            only.unwrap_or("")
        ));
    }
    let mut text = String::new();
    let mut units = Value::array();
    for k in kinds {
        text += &format!("{}:\n", k.name());
        for u in UNITS.iter().filter(|u| u.kind == k) {
            let aliases: Vec<Value> = u.aliases.iter().map(|a| Value::from(*a)).collect();
            text += &format!("  {} ({})", u.symbol, u.name);
            if !u.aliases.is_empty() {
                text += &format!(", also {}", u.aliases.join(", "));
            }
            text.push('\n');
            units.push(
                Value::object()
                    .with("symbol", u.symbol)
                    .with("name", u.name)
                    .with("kind", k.name())
                    .with("aliases", aliases),
            );
        }
    }
    text += "Names and plurals work too (kilometers, pounds, hours). A month is 30.436875 days and a year \
             365.2425 days (mean Gregorian). US customary volumes unless prefixed imp_. Temperatures are \
             absolute temperatures, not differences.";
    Ok(ToolResult::text(text).with_structured(Value::object().with("units", units)))
}

mcpwasm::plugin! {
    tools: [
        Tool::new("convert", "Convert a quantity between units of the same kind: length, mass, temperature, \
            volume (US and imperial), data size (SI and binary prefixes, bits and bytes) or time. Answers \
            'value from = result to'; an unknown unit gets suggestions.", CONVERT_SCHEMA, convert)
            .title("Convert units")
            .output_schema(CONVERT_OUTPUT)
            .annotations(READ_ONLY),
        Tool::new("list_units", "List the units convert understands, with their symbols, names and aliases.",
            LIST_SCHEMA, list_units)
            .title("List units")
            .annotations(READ_ONLY),
    ]
}

#[cfg(test)]
mod tests {
    use mcpwasm::testing::{call_tool, list_tools};

    fn conv(args: &str) -> mcpwasm::Value {
        call_tool(&super::mcpwasm_tools(), "convert", args)
    }

    fn result(value: f64, from: &str, to: &str) -> f64 {
        let r = conv(&format!(r#"{{"value":{},"from":"{}","to":"{}"}}"#, value, from, to));
        assert!(r.get("isError").is_none(), "{} {} -> {}: {}", value, from, to, r);
        r["structuredContent"]["result"].as_f64().unwrap()
    }

    #[test]
    fn conversions() {
        let cases: &[(f64, &str, &str, f64)] = &[
            (1.0, "mi", "km", 1.609344),
            (1.0, "in", "cm", 2.54),
            (3.0, "ft", "yd", 1.0),
            (1.0, "lb", "kg", 0.45359237),
            (16.0, "oz", "lb", 1.0),
            (212.0, "F", "C", 100.0),
            (-40.0, "C", "F", -40.0),
            (0.0, "K", "C", -273.15),
            (491.67, "R", "F", 32.0),
            (1.0, "gal", "l", 3.785411784),
            (1.0, "imp_gal", "l", 4.54609),
            (1.0, "cup", "fl_oz", 8.0),
            (1.0, "GiB", "MB", 1073.741824),
            (1.0, "Mbit", "kB", 125.0),
            (8.0, "bit", "B", 1.0),
            (1.0, "d", "h", 24.0),
            (90.0, "min", "h", 1.5),
            (1.0, "yr", "d", 365.2425),
            (1.0, "nmi", "m", 1852.0),
        ];
        for &(v, from, to, want) in cases {
            assert_eq!(result(v, from, to), want, "{} {} -> {}", v, from, to);
        }
    }

    #[test]
    fn spellings() {
        assert_eq!(result(2.0, "Kilometers", "metres"), 2000.0);
        assert_eq!(result(1.0, "°C", "kelvin"), 274.15);
        assert_eq!(result(1.0, "µm", "nm"), 1000.0);
        assert_eq!(result(1.0, "hours", "MINUTES"), 60.0);
        assert_eq!(result(1.0, "fl oz", "ml"), 29.5735295625);
        assert_eq!(result(1.0, "kb", "B"), 1000.0);
    }

    #[test]
    fn text_and_precision() {
        let r = conv(r#"{"value":5,"from":"km","to":"mi","precision":4}"#);
        assert_eq!(r["content"][0]["text"].as_str(), Some("5 km (kilometre) = 3.107 mi (mile)"));
        let r = conv(r#"{"value":1,"from":"ly","to":"m"}"#);
        assert_eq!(r["content"][0]["text"].as_str(), Some("1 ly (light-year) = 9.460730473e15 m (metre)"));
    }

    #[test]
    fn errors() {
        let err = |args: &str| {
            let r = conv(args);
            assert_eq!(r["isError"].as_bool(), Some(true), "{}", args);
            r["content"][0]["text"].as_str().unwrap().to_string()
        };
        let e = err(r#"{"value":1,"from":"kilometr","to":"m"}"#);
        assert!(e.starts_with("unknown unit \"kilometr\"; did you mean km (kilometre)?"), "{}", e);
        let e = err(r#"{"value":1,"from":"furlong","to":"m"}"#);
        assert_eq!(e, "unknown unit \"furlong\". The list_units tool lists every unit (clients see it as units_list_units when the plugin is named units and prefixed, as by default).");
        let e = err(r#"{"value":1,"from":"mb","to":"B"}"#);
        assert!(e.contains("ambiguous unit \"mb\"") && e.contains("MB (megabyte)") && e.contains("megabit"), "{}", e);
        let e = err(r#"{"value":1,"from":"kg","to":"m"}"#);
        assert_eq!(e, "cannot convert kg (kilogram, a mass unit) to m (metre, a length unit)");
        let e = err(r#"{"value":-500,"from":"C","to":"F"}"#);
        assert_eq!(e, "-500 C is below absolute zero (-226.85 K)");
        let e = err(r#"{"value":1,"from":"m"}"#);
        assert!(e.contains("missing required argument \"to\""), "{}", e);
    }

    #[test]
    fn declares_tools() {
        let v = list_tools(&super::mcpwasm_tools()).unwrap();
        assert_eq!(v["tools"][0]["inputSchema"]["required"].to_json(), r#"["value","from","to"]"#);
        assert_eq!(v["tools"][1]["name"].as_str(), Some("list_units"));
        let r = call_tool(&super::mcpwasm_tools(), "list_units", r#"{"kind":"temperature"}"#);
        assert_eq!(r["structuredContent"]["units"].as_array().map(|a| a.len()), Some(4));
    }

    #[test]
    fn every_unit_round_trips() {
        for u in super::UNITS {
            assert!(std::ptr::eq(super::lookup(u.symbol).unwrap(), u), "{}", u.symbol);
            assert!(std::ptr::eq(super::lookup(u.name).unwrap(), u), "{}", u.name);
            for a in u.aliases {
                assert!(std::ptr::eq(super::lookup(a).unwrap(), u), "alias {} of {}", a, u.symbol);
            }
        }
    }
}

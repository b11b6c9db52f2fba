//! The unit table, unit lookup and the conversion itself.
//!
//! Every unit converts to its kind's base unit as `base = value * factor + offset`.
//! Only temperatures have an offset. Exact definitions are used wherever one
//! exists (international yard and pound, US customary and imperial volumes).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Length,
    Mass,
    Temperature,
    Volume,
    Data,
    Time,
}

pub const KINDS: [Kind; 6] = [Kind::Length, Kind::Mass, Kind::Temperature, Kind::Volume, Kind::Data, Kind::Time];

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Length => "length",
            Kind::Mass => "mass",
            Kind::Temperature => "temperature",
            Kind::Volume => "volume",
            Kind::Data => "data",
            Kind::Time => "time",
        }
    }
}

pub struct Unit {
    pub symbol: &'static str,
    pub name: &'static str,
    pub kind: Kind,
    pub factor: f64,
    pub offset: f64,
    /// Other spellings, normalized as by [`normalize`] (plural `s` is implied).
    pub aliases: &'static [&'static str],
}

const fn u(
    symbol: &'static str,
    name: &'static str,
    kind: Kind,
    factor: f64,
    aliases: &'static [&'static str],
) -> Unit {
    Unit { symbol, name, kind, factor, offset: 0.0, aliases }
}

use Kind::*;

const IN: f64 = 0.0254;
const LB: f64 = 0.45359237;
const US_GAL: f64 = 231.0 * IN * IN * IN * 1000.0; // litres
const IMP_GAL: f64 = 4.54609;
const DAY: f64 = 86400.0;

/// Base units: metre, kilogram, kelvin, litre, byte, second.
pub static UNITS: &[Unit] = &[
    u("nm", "nanometre", Length, 1e-9, &["nanometer"]),
    u("um", "micrometre", Length, 1e-6, &["micrometer", "micron"]),
    u("mm", "millimetre", Length, 1e-3, &["millimeter"]),
    u("cm", "centimetre", Length, 1e-2, &["centimeter"]),
    u("m", "metre", Length, 1.0, &["meter"]),
    u("km", "kilometre", Length, 1e3, &["kilometer"]),
    u("in", "inch", Length, IN, &["inches", "\""]),
    u("ft", "foot", Length, 12.0 * IN, &["feet", "'"]),
    u("yd", "yard", Length, 36.0 * IN, &[]),
    u("mi", "mile", Length, 63360.0 * IN, &["statute_mile"]),
    u("nmi", "nautical mile", Length, 1852.0, &["nautical_mile", "NM"]),
    u("au", "astronomical unit", Length, 149_597_870_700.0, &["astronomical_unit"]),
    u("ly", "light-year", Length, 9_460_730_472_580_800.0, &["light_year", "lightyear"]),
    u("ug", "microgram", Mass, 1e-9, &["mcg"]),
    u("mg", "milligram", Mass, 1e-6, &[]),
    u("g", "gram", Mass, 1e-3, &["gramme"]),
    u("kg", "kilogram", Mass, 1.0, &["kilo"]),
    u("t", "tonne", Mass, 1e3, &["metric_ton"]),
    u("ct", "carat", Mass, 2e-4, &[]),
    u("oz", "ounce", Mass, LB / 16.0, &[]),
    u("lb", "pound", Mass, LB, &["lbs"]),
    u("st", "stone", Mass, 14.0 * LB, &[]),
    u("short_ton", "US short ton", Mass, 2000.0 * LB, &["us_ton", "ton_us"]),
    u("long_ton", "imperial long ton", Mass, 2240.0 * LB, &["uk_ton", "ton_uk", "imperial_ton"]),
    Unit { symbol: "K", name: "kelvin", kind: Temperature, factor: 1.0, offset: 0.0, aliases: &["kelvins"] },
    Unit {
        symbol: "C",
        name: "degree Celsius",
        kind: Temperature,
        factor: 1.0,
        offset: 273.15,
        aliases: &["celsius", "degc", "centigrade"],
    },
    Unit {
        symbol: "F",
        name: "degree Fahrenheit",
        kind: Temperature,
        factor: 5.0 / 9.0,
        offset: 459.67 * 5.0 / 9.0,
        aliases: &["fahrenheit", "degf"],
    },
    Unit {
        symbol: "R",
        name: "degree Rankine",
        kind: Temperature,
        factor: 5.0 / 9.0,
        offset: 0.0,
        aliases: &["rankine", "degr"],
    },
    u("ml", "millilitre", Volume, 1e-3, &["mL", "milliliter", "cc", "cm3"]),
    u("cl", "centilitre", Volume, 1e-2, &["centiliter"]),
    u("dl", "decilitre", Volume, 1e-1, &["deciliter"]),
    u("l", "litre", Volume, 1.0, &["L", "liter"]),
    u("m3", "cubic metre", Volume, 1e3, &["cubic_meter", "cubic_metre"]),
    u("tsp", "US teaspoon", Volume, US_GAL / 768.0, &["teaspoon"]),
    u("tbsp", "US tablespoon", Volume, US_GAL / 256.0, &["tablespoon"]),
    u("fl_oz", "US fluid ounce", Volume, US_GAL / 128.0, &["floz", "fluid_ounce", "us_fl_oz"]),
    u("cup", "US cup", Volume, US_GAL / 16.0, &["us_cup"]),
    u("pt", "US pint", Volume, US_GAL / 8.0, &["pint", "us_pint"]),
    u("qt", "US quart", Volume, US_GAL / 4.0, &["quart", "us_quart"]),
    u("gal", "US gallon", Volume, US_GAL, &["gallon", "us_gal", "us_gallon"]),
    u("imp_fl_oz", "imperial fluid ounce", Volume, IMP_GAL / 160.0, &["uk_fl_oz"]),
    u("imp_pt", "imperial pint", Volume, IMP_GAL / 8.0, &["uk_pint", "imperial_pint"]),
    u("imp_gal", "imperial gallon", Volume, IMP_GAL, &["uk_gal", "uk_gallon", "imperial_gallon"]),
    u("in3", "cubic inch", Volume, IN * IN * IN * 1000.0, &["cubic_inch", "cu_in"]),
    u("ft3", "cubic foot", Volume, 1728.0 * IN * IN * IN * 1000.0, &["cubic_foot", "cubic_feet", "cu_ft"]),
    u("bbl", "oil barrel", Volume, 42.0 * US_GAL, &["barrel"]),
    u("bit", "bit", Data, 0.125, &["b"]),
    u("B", "byte", Data, 1.0, &["octet"]),
    u("kbit", "kilobit", Data, 125.0, &[]),
    u("Mbit", "megabit", Data, 125e3, &["Mb"]),
    u("Gbit", "gigabit", Data, 125e6, &["Gb"]),
    u("Tbit", "terabit", Data, 125e9, &["Tb"]),
    u("kB", "kilobyte", Data, 1e3, &["KB"]),
    u("MB", "megabyte", Data, 1e6, &[]),
    u("GB", "gigabyte", Data, 1e9, &[]),
    u("TB", "terabyte", Data, 1e12, &[]),
    u("PB", "petabyte", Data, 1e15, &[]),
    u("KiB", "kibibyte", Data, 1024.0, &[]),
    u("MiB", "mebibyte", Data, 1048576.0, &[]),
    u("GiB", "gibibyte", Data, 1073741824.0, &[]),
    u("TiB", "tebibyte", Data, 1099511627776.0, &[]),
    u("PiB", "pebibyte", Data, 1125899906842624.0, &[]),
    u("ns", "nanosecond", Time, 1e-9, &[]),
    u("us", "microsecond", Time, 1e-6, &[]),
    u("ms", "millisecond", Time, 1e-3, &[]),
    u("s", "second", Time, 1.0, &["sec", "secs"]),
    u("min", "minute", Time, 60.0, &["mins"]),
    u("h", "hour", Time, 3600.0, &["hr", "hrs"]),
    u("d", "day", Time, DAY, &[]),
    u("wk", "week", Time, 7.0 * DAY, &["w"]),
    u("mo", "month", Time, 30.436875 * DAY, &[]),
    u("yr", "year", Time, 365.2425 * DAY, &["y", "a"]),
];

/// Canonical spelling for lookups: trimmed, `µ`/`μ` as `u`, `³` as `3`,
/// no degree sign, spaces and hyphens as `_`.
pub fn normalize(s: &str) -> String {
    s.trim().replace(['µ', 'μ'], "u").replace('³', "3").replace('°', "").replace([' ', '-'], "_")
}

fn spellings(unit: &Unit) -> impl Iterator<Item = String> + '_ {
    let name = normalize(unit.name);
    std::iter::once(unit.symbol.to_string())
        .chain(std::iter::once(name))
        .chain(unit.aliases.iter().map(|a| a.to_string()))
}

/// Finds a unit: exact spelling first, then case-insensitive, then without a
/// plural `s`. An ambiguous or unknown spelling is an error a model can act on.
pub fn lookup(input: &str) -> Result<&'static Unit, String> {
    let key = normalize(input);
    if key.is_empty() {
        return Err("empty unit name".into());
    }
    if let Some(u) = UNITS.iter().find(|u| spellings(u).any(|s| s == key)) {
        return Ok(u);
    }
    let mut tries = vec![key.clone()];
    if key.len() > 3 && (key.ends_with('s') || key.ends_with('S')) {
        tries.push(key[..key.len() - 1].to_string());
    }
    for k in &tries {
        let found: Vec<&Unit> = UNITS.iter().filter(|u| spellings(u).any(|s| s.eq_ignore_ascii_case(k))).collect();
        match found.len() {
            0 => {}
            1 => return Ok(found[0]),
            _ => {
                let names: Vec<String> = found.iter().map(|u| format!("{} ({})", u.symbol, u.name)).collect();
                return Err(format!("ambiguous unit {:?}: did you mean {}?", input, names.join(" or ")));
            }
        }
    }
    let near = suggestions(&key);
    let hint = if near.is_empty() { ".".to_string() } else { format!("; did you mean {}?", near.join(", ")) };
    // A plugin does not know the name clients see its tools under (the host
    // prefixes them with the plugin's name unless configured not to), so the
    // hint names both forms.
    Err(format!("unknown unit {:?}{} {}", input, hint, LIST_HINT))
}

/// How an unknown-unit error points to the list of units.
pub const LIST_HINT: &str = "The list_units tool lists every unit (clients see it as units_list_units when the plugin is named units and prefixed, as by default).";

/// Units whose spelling is within two edits of `key`, case-insensitively.
fn suggestions(key: &str) -> Vec<String> {
    let key = key.to_ascii_lowercase();
    let mut out: Vec<String> = Vec::new();
    for u in UNITS {
        if spellings(u).any(|s| edit_distance(&s.to_ascii_lowercase(), &key) <= 2.min(key.len() / 2)) {
            out.push(format!("{} ({})", u.symbol, u.name));
        }
    }
    out.truncate(5);
    out
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != cb) as usize).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Converts `value` from one unit to another of the same kind.
pub fn convert(value: f64, from: &Unit, to: &Unit) -> Result<f64, String> {
    if from.kind != to.kind {
        return Err(format!(
            "cannot convert {} ({}, a {} unit) to {} ({}, a {} unit)",
            from.symbol,
            from.name,
            from.kind.name(),
            to.symbol,
            to.name,
            to.kind.name()
        ));
    }
    let base = value * from.factor + from.offset;
    if from.kind == Temperature && base < -1e-9 {
        return Err(format!("{} {} is below absolute zero ({} K)", value, from.symbol, format_sig(base, 10)));
    }
    let out = (base - to.offset) / to.factor;
    if !out.is_finite() {
        return Err(format!("{} {} in {} is out of range", value, from.symbol, to.symbol));
    }
    if from.offset != 0.0 || to.offset != 0.0 {
        // Subtracting an offset cancels digits: keep those above the
        // intermediate values' rounding noise (491.67 R is 32 F, not 32.0000000000001).
        let mag = base.abs().max(from.offset).max(to.offset) / to.factor;
        let decimals = (13 - mag.log10().floor() as i32).max(0) as usize;
        let out: f64 = format!("{:.*}", decimals, out).parse().unwrap_or(out);
        return Ok(round_sig(out, 15) + 0.0); // + 0.0 turns -0 into 0
    }
    Ok(round_sig(out, 15))
}

/// Rounds to `digits` significant digits; this removes the last-place noise
/// of the factor arithmetic (212 F is 100 C, not 100.00000000000006).
pub fn round_sig(x: f64, digits: usize) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{:.*e}", digits - 1, x).parse().unwrap_or(x)
}

/// `x` with at most `digits` significant digits, without trailing zeros,
/// in exponent form only for very large or small magnitudes.
pub fn format_sig(x: f64, digits: usize) -> String {
    let x = round_sig(x, digits);
    if x == 0.0 {
        return "0".into();
    }
    let exp = x.abs().log10().floor() as i32;
    if exp < -6 || (exp >= 12 && exp >= digits as i32) {
        let s = format!("{:.*e}", digits - 1, x);
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        return format!("{}e{}", trim_zeros(m), e);
    }
    let decimals = (digits as i32 - 1 - exp).max(0) as usize;
    trim_zeros(&format!("{:.*}", decimals, x)).to_string()
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

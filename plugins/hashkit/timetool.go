package main

import (
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // wasip1 has no /usr/share/zoneinfo: embed the zone database (~450 KB)

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

type zoned struct {
	Zone         string `json:"zone"`
	Time         string `json:"time"`
	Abbreviation string `json:"abbreviation"`
	UTCOffset    string `json:"utc_offset"`
	DST          bool   `json:"dst"`
}

type timeAnswer struct {
	zoned
	Date      string     `json:"date"`
	Clock     string     `json:"clock"`
	Weekday   string     `json:"weekday"`
	ISOWeek   string     `json:"iso_week"`
	DayOfYear int        `json:"day_of_year"`
	Unix      int64      `json:"unix"`
	UnixMs    int64      `json:"unix_ms"`
	UTC       string     `json:"utc"`
	Base      string     `json:"base,omitempty"`
	Until     *untilInfo `json:"until,omitempty"`
	Converted []zoned    `json:"converted,omitempty"`
}

type untilInfo struct {
	Time         string `json:"time"`
	Seconds      int64  `json:"seconds"`
	Human        string `json:"human"`
	CalendarDays int    `json:"calendar_days"`
}

func timeTool(c *mcpwasm.Call) (*mcpwasm.Result, error) {
	var a struct {
		Zone      string   `json:"zone"`
		At        string   `json:"at"`
		Add       string   `json:"add"`
		Until     string   `json:"until"`
		ConvertTo []string `json:"convert_to"`
	}
	if err := c.Bind(&a); err != nil {
		return nil, err
	}
	loc, err := zone(a.Zone)
	if err != nil {
		return nil, err
	}
	t := time.Now().In(loc).Truncate(time.Second)
	if a.At != "" {
		if t, err = parseTime(a.At, loc); err != nil {
			return nil, err
		}
	}
	base := t
	if a.Add != "" {
		d, err := parseDuration(a.Add)
		if err != nil {
			return nil, err
		}
		t = d.addTo(t)
	}
	ans := timeAnswer{zoned: zonedTime(t, a.Zone), Date: t.Format("2006-01-02"), Clock: t.Format("15:04:05"),
		Weekday: t.Weekday().String(), DayOfYear: t.YearDay(), Unix: t.Unix(), UnixMs: t.UnixMilli(),
		UTC: t.UTC().Format(time.RFC3339Nano)}
	y, w := t.ISOWeek()
	ans.ISOWeek = strconv.Itoa(y) + "-W" + pad2(w)
	if a.Add != "" {
		ans.Base = base.Format(time.RFC3339Nano)
	}
	if a.Until != "" {
		u, err := parseTime(a.Until, loc)
		if err != nil {
			return nil, errorf("until: %v", err)
		}
		u = u.In(loc)
		d := u.Sub(t)
		h := human(d)
		if d < 0 {
			h = "-" + human(-d)
		}
		ud := time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
		td := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		ans.Until = &untilInfo{Time: u.Format(time.RFC3339Nano), Seconds: int64(d / time.Second), Human: h,
			CalendarDays: int(ud.Sub(td) / (24 * time.Hour))}
	}
	for _, name := range a.ConvertTo {
		l, err := zone(name)
		if err != nil {
			return nil, errorf("convert_to: %v", err)
		}
		ans.Converted = append(ans.Converted, zonedTime(t.In(l), name))
	}
	return mcpwasm.JSON(ans), nil
}

func zonedTime(t time.Time, name string) zoned {
	abbr, off := t.Zone()
	if name == "" {
		name = "UTC"
	}
	return zoned{Zone: name, Time: t.Format(time.RFC3339Nano), Abbreviation: abbr, UTCOffset: offset(off), DST: t.IsDST()}
}

func offset(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	return sign + pad2(sec/3600) + ":" + pad2(sec/60%60)
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// zone resolves an IANA name, UTC, or a fixed offset (+05:30, -0800, +2,
// UTC+2, GMT-03:00).
func zone(name string) (*time.Location, error) {
	s := strings.TrimSpace(name)
	switch strings.ToUpper(s) {
	case "", "UTC", "Z", "GMT":
		return time.UTC, nil
	case "LOCAL":
		return nil, errorf("the plugin has no local time zone; name one, like Europe/Paris")
	}
	if up := strings.ToUpper(s); strings.HasPrefix(up, "UTC") || strings.HasPrefix(up, "GMT") {
		if r := s[3:]; r != "" && (r[0] == '+' || r[0] == '-') {
			s = r
		}
	}
	if s[0] == '+' || s[0] == '-' {
		if off, ok := parseOffset(s[1:]); ok {
			if s[0] == '-' {
				off = -off
			}
			return time.FixedZone(name, off), nil
		}
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, errorf("unknown time zone %q; use an IANA name like Europe/Paris or America/New_York, or an offset like +05:30", name)
	}
	return loc, nil
}

// parseOffset reads "5", "05", "0530" or "05:30" as seconds.
func parseOffset(s string) (int, bool) {
	h, m := s, ""
	if i := strings.IndexByte(s, ':'); i >= 0 {
		h, m = s[:i], s[i+1:]
	} else if len(s) == 4 {
		h, m = s[:2], s[2:]
	}
	hi, err := strconv.Atoi(h)
	if err != nil || len(h) > 2 || hi > 14 {
		return 0, false
	}
	mi := 0
	if m != "" {
		if mi, err = strconv.Atoi(m); err != nil || len(m) != 2 || mi > 59 {
			return 0, false
		}
	}
	return hi*3600 + mi*60, true
}

var layouts = []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"}

// parseTime reads RFC 3339, a wall time or date in loc, or Unix seconds
// (milliseconds if it has 13 or more digits).
func parseTime(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		digits := len(strings.TrimLeft(s, "+-"))
		if digits >= 13 {
			return time.UnixMilli(n).In(loc), nil
		}
		return time.Unix(n, 0).In(loc), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, strings.Replace(s, " ", "T", 1)); err == nil {
		return t.In(loc), nil
	}
	for _, l := range layouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, nil
		}
		if t, err := time.ParseInLocation(l+".999999999", s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errorf("cannot read time %q; use RFC 3339 (2024-03-10T14:30:00Z), a date (2024-03-10), a date and time (2024-03-10 14:30) or Unix seconds", s)
}

// duration is a signed calendar part (years, months, days) and exact part.
type duration struct {
	years, months, days int
	exact               time.Duration
}

// addTo applies d in t's zone: years and months keep the day of month,
// clamped to the target month's last day (Jan 31 + 1 month = Feb 28 or 29);
// days keep the wall time; the exact part is added last.
func (d duration) addTo(t time.Time) time.Time {
	if d.years != 0 || d.months != 0 {
		y, m, day := t.Date()
		total := y*12 + int(m) - 1 + d.years*12 + d.months
		ny, mm := total/12, total%12
		if mm < 0 {
			ny, mm = ny-1, mm+12
		}
		nm := time.Month(mm + 1)
		if last := time.Date(ny, nm+1, 0, 0, 0, 0, 0, time.UTC).Day(); day > last {
			day = last
		}
		h, mi, s := t.Clock()
		t = time.Date(ny, nm, day, h, mi, s, t.Nanosecond(), t.Location())
	}
	if d.days != 0 {
		t = t.AddDate(0, 0, d.days)
	}
	return t.Add(d.exact)
}

// parseDuration reads ISO 8601 (P1Y2M3W4DT5H6M7.5S, optionally signed) or
// number-unit pairs (1h30m, -36h, 2d, 1w, 500ms).
func parseDuration(s string) (duration, error) {
	var d duration
	bad := func() (duration, error) {
		return duration{}, errorf("cannot read duration %q; use ISO 8601 like P1DT2H, P3W, -P1M, or units like 90m, 1h30m, 2d, -36h", s)
	}
	t := strings.TrimSpace(s)
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimLeft(t, "+-")
	iso := strings.HasPrefix(strings.ToUpper(t), "P")
	if iso {
		t = strings.ToUpper(t[1:])
	}
	if t == "" {
		return bad()
	}
	inTime := false
	for t != "" {
		if iso && t[0] == 'T' {
			if inTime {
				return bad()
			}
			inTime, t = true, t[1:]
			continue
		}
		i := 0
		for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.' || t[i] == ',') {
			i++
		}
		j := i
		for j < len(t) && (t[j] < '0' || t[j] > '9') && t[j] != 'T' && t[j] != '.' {
			j++
		}
		num, unit := strings.Replace(t[:i], ",", ".", 1), t[i:j]
		t = t[j:]
		if num == "" || unit == "" {
			return bad()
		}
		if iso {
			switch {
			case !inTime && (unit == "Y" || unit == "M" || unit == "W" || unit == "D"):
				n, err := strconv.Atoi(num)
				if err != nil {
					return bad()
				}
				switch unit {
				case "Y":
					d.years += n
				case "M":
					d.months += n
				case "W":
					d.days += 7 * n
				case "D":
					d.days += n
				}
				continue
			case inTime && (unit == "H" || unit == "M" || unit == "S"):
				unit = strings.ToLower(unit)
			default:
				return bad()
			}
		} else if unit == "d" || unit == "w" {
			n, err := strconv.Atoi(num)
			if err != nil {
				return bad()
			}
			if unit == "w" {
				n *= 7
			}
			d.days += n
			continue
		}
		x, err := time.ParseDuration(num + unit)
		if err != nil {
			return bad()
		}
		d.exact += x
	}
	if neg {
		d.years, d.months, d.days, d.exact = -d.years, -d.months, -d.days, -d.exact
	}
	return d, nil
}

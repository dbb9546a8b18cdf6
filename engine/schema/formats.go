package schema

import (
	"encoding/base64"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// kubeFormats are the string formats kube-apiserver validates in custom
// resources, keyed by name with dashes removed ("date-time" → "datetime"),
// as it normalizes them. Any other format (int32, double, ...) is ignored,
// as kube-apiserver strips it before validating.
var kubeFormats = map[string]func(string) bool{
	"bsonobjectid": regexp.MustCompile(`^[0-9a-fA-F]{24}$`).MatchString,
	"uri":          func(s string) bool { _, err := url.ParseRequestURI(s); return err == nil },
	"email":        func(s string) bool { _, err := mail.ParseAddress(s); return err == nil },
	"hostname":     isHostname,
	"ipv4":         func(s string) bool { return net.ParseIP(s) != nil && strings.Contains(s, ".") },
	"ipv6":         func(s string) bool { return net.ParseIP(s) != nil && strings.Contains(s, ":") },
	"cidr":         func(s string) bool { _, _, err := net.ParseCIDR(s); return err == nil },
	"mac":          func(s string) bool { _, err := net.ParseMAC(s); return err == nil },
	"uuid":         regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`).MatchString,
	"uuid3":        regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$`).MatchString,
	"uuid4":        regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`).MatchString,
	"uuid5":        regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`).MatchString,
	"isbn":         func(s string) bool { return isISBN(s, 10) || isISBN(s, 13) },
	"isbn10":       func(s string) bool { return isISBN(s, 10) },
	"isbn13":       func(s string) bool { return isISBN(s, 13) },
	"creditcard":   isCreditCard,
	"ssn":          regexp.MustCompile(`^\d{3}[- ]?\d{2}[- ]?\d{4}$`).MatchString,
	"hexcolor":     regexp.MustCompile(`^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`).MatchString,
	"rgbcolor":     regexp.MustCompile(`^rgb\(\s*(` + byteRE + `)\s*,\s*(` + byteRE + `)\s*,\s*(` + byteRE + `)\s*\)$`).MatchString,
	"byte":         func(s string) bool { _, err := base64.StdEncoding.DecodeString(s); return err == nil },
	"password":     func(string) bool { return true },
	"date":         func(s string) bool { _, err := time.Parse(time.DateOnly, s); return err == nil },
	"duration":     isDuration,
	"datetime":     isDateTime,
}

const byteRE = `0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5]`

// formatChecker adapts a string check to jsonschema's format signature:
// formats constrain strings only.
func formatChecker(check func(string) bool) func(any) bool {
	return func(v any) bool {
		s, ok := v.(string)
		return !ok || check(s)
	}
}

// isHostname accepts RFC 1123 host names, with letters beyond ASCII.
func isHostname(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsSymbol(r) {
				return false
			}
		}
	}
	return true
}

// isISBN checks an ISBN-10 or ISBN-13 (spaces and dashes allowed) and its check digit.
func isISBN(s string, size int) bool {
	s = strings.NewReplacer(" ", "", "-", "").Replace(s)
	if len(s) != size {
		return false
	}
	sum := 0
	for i, r := range s {
		d := int(r - '0')
		switch {
		case size == 10 && i == 9 && r == 'X':
			d = 10
		case r < '0' || r > '9':
			return false
		}
		if size == 10 {
			sum += (10 - i) * d
		} else if i%2 == 1 {
			sum += 3 * d
		} else {
			sum += d
		}
	}
	if size == 10 {
		return sum%11 == 0
	}
	return sum%10 == 0
}

var creditCardRE = regexp.MustCompile(`^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$`)

// isCreditCard checks a card number (other characters ignored) and its Luhn sum.
func isCreditCard(s string) bool {
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
	if !creditCardRE.MatchString(digits) {
		return false
	}
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

var durationPartRE = regexp.MustCompile(`^\s*(\d+)\s*([A-Za-zµ]+)`)

// durationUnits are the unit spellings accepted besides Go's own: an exact
// name, or a word starting with the last (longest) spelling of a group.
var durationUnits = [][]string{
	{"ns", "nano"}, {"us", "µs", "micro"}, {"ms", "milli"}, {"s", "sec"},
	{"m", "min"}, {"h", "hr", "hour"}, {"d", "day"}, {"w", "wk", "week"},
}

// isDuration accepts Go durations ("1h30m") and spelled ones ("3 days 2 h").
func isDuration(s string) bool {
	if _, err := time.ParseDuration(s); err == nil {
		return true
	}
	rest := s
	for rest != "" {
		m := durationPartRE.FindStringSubmatch(rest)
		if m == nil || !isDurationUnit(strings.ToLower(m[2])) {
			return false
		}
		rest = strings.TrimSpace(rest[len(m[0]):])
	}
	return s != ""
}

func isDurationUnit(unit string) bool {
	for _, group := range durationUnits {
		for i, name := range group {
			if unit == name || (i == len(group)-1 && strings.HasPrefix(unit, name)) {
				return true
			}
		}
	}
	return false
}

// dateTimeLayouts are the RFC 3339 variants kube-apiserver accepts as date-time.
var dateTimeLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05",
	"2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02 15:04:05",
}

func isDateTime(s string) bool {
	s = strings.ToUpper(s)
	for _, layout := range dateTimeLayouts {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// lookupFormat returns the check for a format, or nil when kube-apiserver ignores it.
func lookupFormat(name string) func(string) bool {
	return kubeFormats[strings.ReplaceAll(name, "-", "")]
}

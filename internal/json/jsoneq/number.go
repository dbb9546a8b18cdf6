package jsoneq

import "math/big"

// number is a JSON number's text in its parts: -?int(.frac)?([eE]exp)?.
type number struct {
	neg       bool
	int, frac string
	exp       string // with its sign, if any; "" when there is no exponent
}

// sameNumber compares two numbers by their exact decimal values. A text
// that is not a JSON number equals only itself.
func sameNumber(a, b string) bool {
	x, okX := parseNumber(a)
	y, okY := parseNumber(b)
	if !okX || !okY {
		return a == b
	}
	return x.equal(y)
}

// equal compares the values as 0.DIGITS × 10^point, DIGITS without
// leading or trailing zeros: the same digits at the same point.
func (x number) equal(y number) bool {
	xFirst, xEnd := x.significant()
	yFirst, yEnd := y.significant()
	if xFirst == xEnd || yFirst == yEnd { // a zero, whatever its sign
		return xFirst == xEnd && yFirst == yEnd
	}
	if x.neg != y.neg || xEnd-xFirst != yEnd-yFirst {
		return false
	}
	for i := range xEnd - xFirst {
		if x.digit(xFirst+i) != y.digit(yFirst+i) {
			return false
		}
	}
	return samePoint(len(x.int)-xFirst, x.exp, len(y.int)-yFirst, y.exp)
}

// digit returns digit i of int and frac read as one run of digits.
func (x number) digit(i int) byte {
	if i < len(x.int) {
		return x.int[i]
	}
	return x.frac[i-len(x.int)]
}

// significant returns where the digits of int+frac start and end once
// leading and trailing zeros are left out; first == end for zero.
func (x number) significant() (first, end int) {
	n := len(x.int) + len(x.frac)
	for first < n && x.digit(first) == '0' {
		first++
	}
	for end = n; end > first && x.digit(end-1) == '0'; end-- {
	}
	return first, end
}

// samePoint reports whether shift+exp is the same for both numbers. shift
// is at most the length of the text, so only an exponent of more than 18
// digits needs big integers.
func samePoint(xShift int, xExp string, yShift int, yExp string) bool {
	x, okX := smallInt(xExp)
	y, okY := smallInt(yExp)
	if okX && okY {
		return int64(xShift)+x == int64(yShift)+y
	}
	bx, by := bigInt(xExp), bigInt(yExp)
	bx.Add(bx, big.NewInt(int64(xShift)))
	by.Add(by, big.NewInt(int64(yShift)))
	return bx.Cmp(by) == 0
}

// bigInt parses a signed run of digits that parseNumber accepted; "" is 0.
func bigInt(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return new(big.Int)
	}
	return n
}

// smallInt parses a signed run of digits ("" is 0) that fits in 18 digits
// once its leading zeros are left out.
func smallInt(s string) (int64, bool) {
	neg := s != "" && s[0] == '-'
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	if len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := range len(s) {
		n = n*10 + int64(s[i]-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// parseNumber splits s into its parts if it is a JSON number.
func parseNumber(s string) (number, bool) {
	var x number
	if s != "" && s[0] == '-' {
		x.neg, s = true, s[1:]
	}
	x.int, s = digits(s)
	if x.int == "" || len(x.int) > 1 && x.int[0] == '0' {
		return x, false
	}
	if s != "" && s[0] == '.' {
		if x.frac, s = digits(s[1:]); x.frac == "" {
			return x, false
		}
	}
	if s != "" && (s[0] == 'e' || s[0] == 'E') {
		return x.withExponent(s[1:])
	}
	return x, s == ""
}

// withExponent sets x's exponent from s, the text after the 'e'.
func (x number) withExponent(s string) (number, bool) {
	x.exp = s
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	d, rest := digits(s)
	return x, d != "" && rest == ""
}

// digits splits s after its leading run of ASCII digits.
func digits(s string) (run, rest string) {
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}

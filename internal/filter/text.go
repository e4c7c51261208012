package filter

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// String returns e in the text form that [Parse] reads back into an equal
// expression.
func (e *Expr) String() string {
	if e == nil {
		return "<none>"
	}
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e *Expr) write(b *strings.Builder) {
	e = unwrap(e)
	if e == nil {
		b.WriteString("<none>")
		return
	}
	switch e.Op {
	case Not:
		b.WriteString("not ")
		writeSub(b, e.Subs[0])
	case And, Or:
		if len(e.Subs) == 0 {
			b.WriteString(strconv.FormatBool(e.Op == And))
			return
		}
		for i, s := range e.Subs {
			if i > 0 {
				b.WriteString(map[bool]string{true: " and ", false: " or "}[e.Op == And])
			}
			writeSub(b, s)
		}
	case In:
		b.WriteString(ident(e.Col))
		b.WriteString(" in (")
		for i, v := range e.Vals {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(v.String())
		}
		b.WriteString(")")
	default:
		b.WriteString(ident(e.Col))
		b.WriteString(" " + opText[e.Op] + " ")
		b.WriteString(e.Vals[0].String())
	}
}

// writeSub writes an operand of not, and or or, in parentheses if it is
// an and or an or of several operands.
func writeSub(b *strings.Builder, s *Expr) {
	s = unwrap(s)
	if s == nil {
		b.WriteString("<none>")
		return
	}
	if (s.Op == And || s.Op == Or) && len(s.Subs) > 1 {
		b.WriteString("(")
		s.write(b)
		b.WriteString(")")
		return
	}
	s.write(b)
}

// unwrap returns the operand of an and or an or of one operand, which is
// written as that operand: Parse reads "(x)" as x.
func unwrap(e *Expr) *Expr {
	for e != nil && (e.Op == And || e.Op == Or) && len(e.Subs) == 1 {
		e = e.Subs[0]
	}
	return e
}

// ident returns a column name as it is written: bare if it is a word of
// letters, digits, '_' and '.' that does not start as a number does (a
// digit or '.'), else in double quotes.
func ident(s string) string {
	if s != "" && !keyword(s) && strings.IndexFunc(s, func(r rune) bool { return !identRune(r) }) < 0 &&
		strings.IndexByte("0123456789.", s[0]) < 0 {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func identRune(r rune) bool { return r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func keyword(s string) bool {
	switch strings.ToLower(s) {
	case "and", "or", "not", "in", "between", "true", "false":
		return true
	}
	return false
}

// Parse reads the text form of a filter:
//
//	expr    = and { "or" and }
//	and     = not { "and" not }
//	not     = "not" not | "(" expr ")" | "true" | "false" | column rest
//	rest    = op literal | "in" "(" [ literal { "," literal } ] ")"
//	        | "between" literal "and" literal
//	op      = "=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">="
//	column  = a word of letters, digits, '_' and '.', not starting with a
//	          digit or '.' | '"' text '"'
//	literal = integer | decimal | +Inf | -Inf | 'text' | true | false
//	        | x'hex' | timestamp 'RFC 3339' | date 'YYYY-MM-DD'
//
// Keywords are case-insensitive. An integer literal is an int64 (a
// uint64 if it is too large); a number with a fraction or an exponent,
// +Inf and -Inf are float64s; in quoted text a quote is written twice.
// "true" alone is the filter that keeps everything, "false" the one that
// keeps nothing.
func Parse(s string) (*Expr, error) {
	p := &parser{src: s}
	p.next()
	e, err := p.expr()
	if err == nil {
		err = p.err
	}
	if err == nil && p.tok.kind != tEOF {
		err = p.errorf("unexpected %s", p.tok)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tWord
	tQuoted // a double-quoted column name
	tText   // a single-quoted literal
	tNumber
	tOp
	tPunct
)

type token struct {
	kind tokKind
	text string
	pos  int
}

func (t token) String() string {
	if t.kind == tEOF {
		return "end of text"
	}
	return strconv.Quote(t.text)
}

type parser struct {
	src string
	pos int
	tok token
	err error
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("filter %q: at %d: %s", p.src, p.tok.pos, fmt.Sprintf(format, args...))
}

// next reads the next token into p.tok; a lexical error is kept in p.err
// and reported by the parser at that token.
func (p *parser) next() {
	s := p.src
	for p.pos < len(s) && (s[p.pos] == ' ' || s[p.pos] == '\t' || s[p.pos] == '\n' || s[p.pos] == '\r') {
		p.pos++
	}
	start := p.pos
	p.tok = token{pos: start}
	if p.pos >= len(s) {
		return
	}
	c := s[p.pos]
	switch {
	case c == '\'' || c == '"':
		text, ok := p.quoted(c)
		if !ok {
			p.err = fmt.Errorf("filter %q: at %d: unterminated quote", s, start)
			p.tok = token{kind: tEOF, pos: start}
			return
		}
		p.tok = token{kind: map[byte]tokKind{'\'': tText, '"': tQuoted}[c], text: text, pos: start}
	case infinity(s[p.pos:]):
		p.pos += 4
		p.tok = token{kind: tNumber, text: s[start:p.pos], pos: start}
	case c == '-' || c == '+' || c >= '0' && c <= '9' || c == '.':
		p.pos++
		for p.pos < len(s) && (strings.IndexByte("0123456789.eE", s[p.pos]) >= 0 ||
			(s[p.pos] == '-' || s[p.pos] == '+') && (s[p.pos-1] == 'e' || s[p.pos-1] == 'E')) {
			p.pos++
		}
		p.tok = token{kind: tNumber, text: s[start:p.pos], pos: start}
	case strings.IndexByte("=!<>", c) >= 0:
		p.pos++
		if p.pos < len(s) && (s[p.pos] == '=' || c == '<' && s[p.pos] == '>') {
			p.pos++
		}
		p.tok = token{kind: tOp, text: s[start:p.pos], pos: start}
	case c == '(' || c == ')' || c == ',':
		p.pos++
		p.tok = token{kind: tPunct, text: s[start:p.pos], pos: start}
	default:
		for _, r := range s[p.pos:] {
			if !identRune(r) {
				break
			}
			p.pos += len(string(r))
		}
		if p.pos == start {
			p.pos++
			p.tok = token{kind: tPunct, text: s[start:p.pos], pos: start}
			return
		}
		p.tok = token{kind: tWord, text: s[start:p.pos], pos: start}
	}
}

// infinity reports whether s starts with +Inf or -Inf (as Value.String
// writes the infinities, in any case) not followed by a letter or digit.
func infinity(s string) bool {
	if len(s) < 4 || s[0] != '+' && s[0] != '-' || !strings.EqualFold(s[1:4], "inf") {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[4:])
	return !identRune(r)
}

// quoted reads text quoted by q, in which q doubled stands for itself.
func (p *parser) quoted(q byte) (string, bool) {
	var b strings.Builder
	s := p.src
	for i := p.pos + 1; i < len(s); i++ {
		if s[i] != q {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			b.WriteByte(q)
			i++
			continue
		}
		p.pos = i + 1
		return b.String(), true
	}
	return "", false
}

func (p *parser) is(word string) bool {
	return p.tok.kind == tWord && strings.EqualFold(p.tok.text, word)
}

func (p *parser) punct(s string) bool { return p.tok.kind == tPunct && p.tok.text == s }

func (p *parser) expect(s string) error {
	if p.err != nil {
		return p.err
	}
	if p.punct(s) || p.is(s) {
		p.next()
		return nil
	}
	return p.errorf("want %q, found %s", s, p.tok)
}

func (p *parser) expr() (*Expr, error) {
	return p.chain(Or, "or", p.and)
}

func (p *parser) and() (*Expr, error) {
	return p.chain(And, "and", p.not)
}

// chain reads operands joined by word; one operand is itself.
func (p *parser) chain(op Op, word string, operand func() (*Expr, error)) (*Expr, error) {
	first, err := operand()
	if err != nil {
		return nil, err
	}
	subs := []*Expr{first}
	for p.is(word) {
		p.next()
		e, err := operand()
		if err != nil {
			return nil, err
		}
		subs = append(subs, e)
	}
	if len(subs) == 1 {
		return first, nil
	}
	return Logic(op, subs...), nil
}

func (p *parser) not() (*Expr, error) {
	if p.err != nil {
		return nil, p.err
	}
	switch {
	case p.is("not"):
		p.next()
		e, err := p.not()
		if err != nil {
			return nil, err
		}
		return Logic(Not, e), nil
	case p.punct("("):
		p.next()
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		return e, p.expect(")")
	case p.is("true"), p.is("false"):
		op := map[bool]Op{true: And, false: Or}[p.is("true")]
		p.next()
		return Logic(op), nil
	case p.tok.kind == tWord && !keyword(p.tok.text), p.tok.kind == tQuoted:
		col := p.tok.text
		p.next()
		return p.rest(col)
	}
	return nil, p.errorf("want a column, 'not' or '(', found %s", p.tok)
}

var ops = map[string]Op{"=": Eq, "==": Eq, "!=": Ne, "<>": Ne, "<": Lt, "<=": Le, ">": Gt, ">=": Ge}

func (p *parser) rest(col string) (*Expr, error) {
	switch {
	case p.tok.kind == tOp:
		op, ok := ops[p.tok.text]
		if !ok {
			return nil, p.errorf("unknown operator %s", p.tok)
		}
		p.next()
		v, err := p.literal()
		if err != nil {
			return nil, err
		}
		return Compare(op, col, v), nil
	case p.is("in"):
		p.next()
		if err := p.expect("("); err != nil {
			return nil, err
		}
		var vs []Value
		for !p.punct(")") {
			if len(vs) > 0 {
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}
			v, err := p.literal()
			if err != nil {
				return nil, err
			}
			vs = append(vs, v)
		}
		p.next()
		return InList(col, vs), nil
	case p.is("between"):
		p.next()
		lo, err := p.literal()
		if err != nil {
			return nil, err
		}
		if err := p.expect("and"); err != nil {
			return nil, err
		}
		hi, err := p.literal()
		if err != nil {
			return nil, err
		}
		return Logic(And, Compare(Ge, col, lo), Compare(Le, col, hi)), nil
	}
	return nil, p.errorf("want an operator, 'in' or 'between' after column %q, found %s", col, p.tok)
}

func (p *parser) literal() (Value, error) {
	if p.err != nil {
		return Value{}, p.err
	}
	t := p.tok
	switch {
	case t.kind == tText:
		p.next()
		return Value{Kind: String, Str: t.text}, nil
	case t.kind == tNumber:
		p.next()
		return number(t.text, p)
	case p.is("true"), p.is("false"):
		p.next()
		return Value{Kind: Bool, Bool: strings.EqualFold(t.text, "true")}, nil
	case p.is("x"), p.is("timestamp"), p.is("date"):
		p.next()
		if p.err != nil {
			return Value{}, p.err
		}
		q := p.tok
		if q.kind != tText {
			return Value{}, p.errorf("want a quoted text after %s, found %s", t.text, q)
		}
		p.next()
		return typed(strings.ToLower(t.text), q.text, p)
	}
	return Value{}, p.errorf("want a literal, found %s", t)
}

func number(s string, p *parser) (Value, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return Value{Kind: Int, Int: i}, nil
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return Value{Kind: Uint, Uint: u}, nil
	}
	if f, ok := Decimal(s, 64); ok {
		return Value{Kind: Float, Float: f}, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && math.IsInf(f, 0) && infinity(s) {
		return Value{Kind: Float, Float: f}, nil
	}
	return Value{}, fmt.Errorf("filter %q: %q is not a number", p.src, s)
}

func typed(kind, text string, p *parser) (Value, error) {
	switch kind {
	case "x":
		b, err := hex.DecodeString(text)
		if err != nil {
			return Value{}, fmt.Errorf("filter %q: x'%s' is not hexadecimal", p.src, text)
		}
		return Value{Kind: Bytes, Str: string(b)}, nil
	case "date":
		t, err := time.Parse(time.DateOnly, text)
		if err != nil {
			return Value{}, fmt.Errorf("filter %q: date '%s' is not YYYY-MM-DD", p.src, text)
		}
		return Value{Kind: Time, Time: t}, nil
	}
	t, ok := ParseTime(text)
	if !ok {
		return Value{}, fmt.Errorf("filter %q: timestamp '%s' is not RFC 3339", p.src, text)
	}
	return Value{Kind: Time, Time: t}, nil
}

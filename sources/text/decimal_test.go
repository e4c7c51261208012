package text_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/rowflow/rowflow/sources/text"
)

type decimalRow struct {
	ID    int64            `csv:"id" json:"id"`
	Price decimal.Decimal  `csv:"price" json:"price"`
	Opt   *decimal.Decimal `csv:"opt" json:"opt"`
}

// checkDecimals compares rows with the decimal texts they were read from,
// exactly: coefficient and exponent as decimal.NewFromString gives them
// (no float on the way), a nil pointer for a null.
func checkDecimals(t *testing.T, rows []decimalRow, want [][2]string) {
	t.Helper()
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		w := decimal.RequireFromString(want[i][0])
		if !r.Price.Equal(w) || r.Price.Exponent() != w.Exponent() {
			t.Errorf("row %d: price %s (exponent %d), want %s (exponent %d)", i, r.Price, r.Price.Exponent(), w, w.Exponent())
		}
		switch {
		case want[i][1] == "" && r.Opt != nil:
			t.Errorf("row %d: opt %s, want null", i, r.Opt)
		case want[i][1] != "" && (r.Opt == nil || !r.Opt.Equal(decimal.RequireFromString(want[i][1]))):
			t.Errorf("row %d: opt %v, want %s", i, r.Opt, want[i][1])
		}
	}
}

// TestDecimalFields: CSV and JSON Lines text reads into decimal.Decimal
// and *decimal.Decimal exactly, as written (trailing zeros and digits past
// a float64's included); an empty CSV field and a JSON null are nil in a
// pointer; text that is not a decimal is a bad record naming the column.
func TestDecimalFields(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "a.csv")
	os.WriteFile(csvPath, []byte("id,price,opt\n1,12.30,-0.001\n2,-12345678901234567890.12,\n3,0.1,1e3\n"), 0o644)
	want := [][2]string{{"12.30", "-0.001"}, {"-12345678901234567890.12", ""}, {"0.1", "1000"}}
	rows, err := readValues(t, text.CSV[decimalRow](csvPath))
	if err != nil {
		t.Fatal(err)
	}
	checkDecimals(t, rows, want)

	jsonPath := filepath.Join(dir, "a.jsonl")
	os.WriteFile(jsonPath, []byte(`{"id":1,"price":12.30,"opt":-0.001}`+"\n"+
		`{"id":2,"price":"-12345678901234567890.12","opt":null}`+"\n"+
		`{"id":3,"price":0.1,"opt":"1e3"}`+"\n"), 0o644)
	rows, err = readValues(t, text.JSONL[decimalRow](jsonPath))
	if err != nil {
		t.Fatal(err)
	}
	checkDecimals(t, rows, want)

	os.WriteFile(csvPath, []byte("id,price,opt\n1,12.3.0,\n"), 0o644)
	if _, err := readValues(t, text.CSV[decimalRow](csvPath)); err == nil || !strings.Contains(err.Error(), "column price") || !strings.Contains(err.Error(), "not a decimal") {
		t.Fatalf("a bad decimal: %v", err)
	}

	// A Hive partition value fills a decimal field too.
	root := filepath.Join(dir, "hive")
	os.MkdirAll(filepath.Join(root, "price=7.50"), 0o755)
	os.WriteFile(filepath.Join(root, "price=7.50", "a.csv"), []byte("id,opt\n1,\n"), 0o644)
	rows, err = readValues(t, text.CSV[decimalRow](root))
	if err != nil {
		t.Fatal(err)
	}
	checkDecimals(t, rows, [][2]string{{"7.50", ""}})
}

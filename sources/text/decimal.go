package text

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/shopspring/decimal"
)

// decimalType is the type of the decimal fields the text sources read
// (github.com/shopspring/decimal: arbitrary precision, exact).
var decimalType = reflect.TypeFor[decimal.Decimal]()

// setDecimal parses decimal text ("12.30", "-0.001", "1e3") into a
// decimal.Decimal exactly, as written: no float on the way, trailing
// zeros kept in its exponent.
func setDecimal(p unsafe.Pointer, s string) error {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return fmt.Errorf("%q is not a decimal number", s)
	}
	*(*decimal.Decimal)(p) = d
	return nil
}

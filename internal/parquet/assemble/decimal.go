package assemble

import (
	"math/big"
	"reflect"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/shopspring/decimal"

	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// decimalType is the type of decimal fields (github.com/shopspring/decimal).
var decimalType = reflect.TypeFor[decimal.Decimal]()

// decimalGetter reads a DECIMAL column into decimal.Decimal fields,
// exactly, at the column's scale (12.30 of a DECIMAL(p,2) has exponent
// -2): the unscaled value is an INT32, an INT64 or big-endian two's
// complement bytes (FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY). ok is false for
// other columns.
func decimalGetter(leaf *pqcol.Leaf) (getter, bool) {
	lt := leaf.Node.Type().LogicalType()
	if lt == nil {
		return nil, false
	}
	d, ok := lt.Value.(*pqformat.DecimalType)
	if !ok {
		return nil, false
	}
	exp := -d.Scale
	switch leaf.Kind {
	case parquet.Int32:
		return loader[decimal.Decimal](func(c *pqcol.Column, _, _ int) func(int) decimal.Decimal {
			s := c.Int32
			return func(v int) decimal.Decimal { return decimal.New(int64(s[v]), exp) }
		}), true
	case parquet.Int64:
		return loader[decimal.Decimal](func(c *pqcol.Column, _, _ int) func(int) decimal.Decimal {
			s := c.Int64
			return func(v int) decimal.Decimal { return decimal.New(s[v], exp) }
		}), true
	case parquet.FixedLenByteArray, parquet.ByteArray:
		return loader[decimal.Decimal](func(c *pqcol.Column, _, _ int) func(int) decimal.Decimal {
			b, offs, w := c.Bytes, c.Offsets, c.Leaf.TypeLength
			if len(offs) == 0 && w > 0 {
				return func(v int) decimal.Decimal { return decimal.NewFromBigInt(twosComplement(b[v*w:(v+1)*w]), exp) }
			}
			return func(v int) decimal.Decimal {
				return decimal.NewFromBigInt(twosComplement(b[offs[v]:offs[v+1]]), exp)
			}
		}), true
	}
	return nil, false
}

// twosComplement returns the integer whose big-endian two's complement
// bytes are b (0 for none).
func twosComplement(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

// decimalConst parses a Hive-partition value once, into decimal fields:
// the rows share its value, which no method of decimal.Decimal changes.
func decimalConst(s string) (func(unsafe.Pointer), error) {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return nil, err
	}
	return func(p unsafe.Pointer) { *(*decimal.Decimal)(p) = d }, nil
}

package rowid_test

import (
	"encoding/json"
	"fmt"

	"github.com/rowflow/rowflow/rowid"
)

// A source gives row i of a file the ordinal i combined with the file's ID.
// A Combiner gives the same IDs faster when one file has many rows.
func Example_ordinals() {
	file := rowid.FromString("data/part-0000.csv")
	fmt.Println("file: ", file)
	c := rowid.NewCombiner(file)
	for i := range uint64(3) {
		id := rowid.Ordinal(i).Combine(file)
		fmt.Printf("row %d: %v %v\n", i, id, c.Combine(rowid.Ordinal(i)) == id)
	}
	// Output:
	// file:  72986dda374e190198d36d768a05a5ca
	// row 0: 6d5deecdd6745f038a82bb5012a0060f true
	// row 1: 6d5deece9e745f038a82bb503aa0060f true
	// row 2: 6d5deecc46745f038a82bb4fc2a0060f true
}

// A flat-map gives the k-th output of a row the row's ID forked, then
// advanced k times.
func ExampleID_Fork() {
	row := rowid.Ordinal(7).Combine(rowid.FromString("data/part-0000.csv"))
	fmt.Println("row:  ", row)
	out := row.Fork()
	for k := range 3 {
		fmt.Printf("out %d: %v\n", k, out)
		out = out.Next()
	}
	// Output:
	// row:   6d5deec9ee745f038a82bb4f4aa0060f
	// out 0: 749c43fed5981d0bb29e37ef0319d142
	// out 1: 33ab17fd7186fa379f895caceabe311b
	// out 2: beeb5fa982975a3407052f9fdb6d40b5
}

func ExampleParse() {
	id := rowid.Ordinal(1).Combine(rowid.FromString("data/part-0000.csv"))
	text := id.String()
	fmt.Println(text)

	back, err := rowid.Parse(text)
	fmt.Println(back == id, err)

	upper, err := rowid.Parse("0123456789ABCDEF00000000000000FF")
	fmt.Printf("%v Hi=%#x Lo=%#x %v\n", upper, upper.Hi, upper.Lo, err)

	_, err = rowid.Parse("0x0123456789abcdef")
	fmt.Println(err)

	data, _ := json.Marshal(map[string]rowid.ID{"id": id})
	fmt.Println(string(data))
	// Output:
	// 6d5deece9e745f038a82bb503aa0060f
	// true <nil>
	// 0123456789abcdef00000000000000ff Hi=0x123456789abcdef Lo=0xff <nil>
	// rowid: invalid ID "0x0123456789abcdef": length 18, want 32 hex digits
	// {"id":"6d5deece9e745f038a82bb503aa0060f"}
}

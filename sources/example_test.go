package sources_test

import (
	"fmt"

	"github.com/rowflow/rowflow/sources"
)

// A filter from a command line, and the text form of one built in Go.
func ExampleParseExpr() {
	f, err := sources.ParseExpr("score > 0.5 AND lang IN ('en', 'de') and not day between 1 and 7")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f)
	fmt.Println(sources.Or(sources.Lt("id", 10), sources.Eq("name", "it's")))
	_, err = sources.ParseExpr("score >")
	fmt.Println(err)
	// Output:
	// score > 0.5 and lang in ('en', 'de') and not (day >= 1 and day <= 7)
	// id < 10 or name = 'it''s'
	// sources: filter "score >": at 7: want a literal, found end of text
}

package main

import (
	"context"
	"testing"
)

func TestQuickstartRuns(t *testing.T) {
	if err := run(context.Background(), 5000, 3); err != nil {
		t.Fatal(err)
	}
}

func TestTokenize(t *testing.T) {
	got, err := tokenize("The  data,row ")
	if err != nil || len(got) != 3 || got[0].Word != "the" || got[2] != (Token{Word: "row", Pos: 2}) {
		t.Fatalf("tokenize = %+v, %v", got, err)
	}
}

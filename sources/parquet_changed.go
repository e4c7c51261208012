package sources

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
)

var footerCRC = crc32.MakeTable(crc32.Castagnoli)

// maxFooterCheck bounds the footer a file-change check reads again; past
// it the check compares the footer's length and its last maxFooterCheck
// bytes.
const maxFooterCheck = 16 << 20

// footerSum returns the CRC-32C of a Parquet file's footer (its metadata,
// length and magic), read from f of size bytes: what a rewrite of the file
// changes even where its size and modification time stay.
func footerSum(f *os.File, size int64) (uint32, error) {
	if size < 12 {
		return 0, fmt.Errorf("%d bytes: too short for a Parquet file", size)
	}
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return 0, err
	}
	if !bytes.Equal(tail[4:], []byte("PAR1")) {
		return 0, fmt.Errorf("no Parquet magic at its end")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return 0, fmt.Errorf("a footer of %d bytes in a file of %d", n, size)
	}
	n = min(n, maxFooterCheck)
	buf := make([]byte, n+8)
	if _, err := f.ReadAt(buf, size-8-n); err != nil {
		return 0, err
	}
	return crc32.Checksum(buf, footerCRC), nil
}

package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A server's binary is started from a copy of its own, none of whose pages
// are in the page cache until the server reads them, as a newly deployed
// binary's are not: the copy is the binary, byte for byte, executable, and
// removed afterwards.
func TestFreshCopyIsReadAnew(t *testing.T) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	original, err := os.ReadFile(bin) // every page of the original now cached
	if err != nil {
		t.Fatal(err)
	}
	copied, remove, err := freshCopy(bin)
	if err != nil {
		t.Fatal(err)
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(filepath.Dir(copied), &fs); err != nil {
		t.Fatal(err)
	}
	if fs.Type != unix.TMPFS_MAGIC { // on tmpfs the cache is the file's only copy
		if resident := residentPages(t, copied); resident != 0 {
			t.Errorf("%d pages of the copy are in the page cache before any process read them", resident)
		}
	}
	got, err := os.ReadFile(copied)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, original) {
		t.Error("the copy differs from the binary")
	}
	if info, err := os.Stat(copied); err != nil || info.Mode().Perm()&0o100 == 0 {
		t.Errorf("the copy is not executable: %v, %v", info.Mode(), err)
	}
	remove()
	if _, err := os.Stat(filepath.Dir(copied)); !os.IsNotExist(err) {
		t.Errorf("the copy's directory is still there: %v", err)
	}
}

// A binary that cannot be copied is an error, with nothing left behind.
func TestFreshCopyOfAMissingBinary(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := freshCopy(filepath.Join(dir, "plumbline")); err == nil {
		t.Fatal("copied a binary that is not there")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// residentPages counts the pages of a file in the page cache (mincore),
// mapping it without touching it.
func residentPages(t *testing.T, path string) int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(info.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(data)
	vec := make([]byte, (len(data)+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

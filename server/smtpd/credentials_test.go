package smtpd

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// An unknown user's login is compared with a dummy hash at the file's
// highest cost: the same work as a known user's.
func TestCredentialsDummyHash(t *testing.T) {
	cheap, _ := bcrypt.GenerateFromPassword([]byte("a"), bcrypt.MinCost)
	dear, _ := bcrypt.GenerateFromPassword([]byte("b"), bcrypt.MinCost+2)
	file := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(file, []byte("alice:"+string(cheap)+"\nbob:"+string(dear)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := loadCredentials(file)
	if err != nil {
		t.Fatal(err)
	}
	if cost, err := bcrypt.Cost(c.dummy); err != nil || cost != bcrypt.MinCost+2 {
		t.Fatalf("dummy hash cost %d (%v), want %d", cost, err, bcrypt.MinCost+2)
	}
	if !c.check("alice", "a") || !c.check("bob", "b") || c.check("alice", "b") || c.check("nobody", "a") {
		t.Fatal("check answers wrongly")
	}
}

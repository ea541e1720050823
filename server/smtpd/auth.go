package smtpd

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"golang.org/x/crypto/bcrypt"
)

// SMTP AUTH: PLAIN and LOGIN are offered on every connection, plaintext
// included (this is a sandbox), unless TLS is required: then only after
// STARTTLS. Without an auth file any user name and
// password are accepted and none are needed; the user name is kept with
// the mail. With one (Settings.AuthFile) mail needs a login it accepts.

// smtpAuthMechanisms are the SASL mechanisms offered.
var smtpAuthMechanisms = []string{sasl.Plain, sasl.Login}

// maxSMTPUser bounds a user name kept with a mail.
const maxSMTPUser = 255

// credentials are the logins of an auth file.
type credentials struct {
	hashes map[string][]byte // user name to bcrypt hash
	// dummy is compared for an unknown user, so that a login costs the
	// same whether the user exists or not: a hash of a random password at
	// the file's highest cost.
	dummy []byte
}

// loadCredentials reads an htpasswd-style file: USER:BCRYPT-HASH lines,
// blank lines and # comments ignored. "" loads nothing (nil).
func loadCredentials(path string) (*credentials, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: SMTP auth file: %w", err)
	}
	users := map[string][]byte{}
	cost := bcrypt.MinCost
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		user, hash, ok := strings.Cut(line, ":")
		if !ok || user == "" {
			return nil, fmt.Errorf("config: SMTP auth file %s, line %d: want USER:BCRYPT-HASH", path, n)
		}
		c, err := bcrypt.Cost([]byte(hash))
		if err != nil {
			return nil, fmt.Errorf("config: SMTP auth file %s, line %d: the hash of %q is not bcrypt (htpasswd -B makes one): %w", path, n, user, err)
		}
		cost = max(cost, c)
		users[user] = []byte(hash)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("config: SMTP auth file %s: %w", path, err)
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("config: SMTP auth file %s holds no user", path)
	}
	dummy, err := bcrypt.GenerateFromPassword([]byte(rand.Text()), cost)
	if err != nil {
		return nil, fmt.Errorf("config: SMTP auth file %s: %w", path, err)
	}
	return &credentials{hashes: users, dummy: dummy}, nil
}

// errAuthFailed is the answer to credentials the auth file refuses.
var errAuthFailed = &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "authentication credentials invalid"}

// check compares a login with the file's, an unknown user's with the
// dummy hash: one bcrypt comparison either way.
func (c *credentials) check(user, password string) bool {
	hash, ok := c.hashes[user]
	if !ok {
		hash = c.dummy
	}
	return bcrypt.CompareHashAndPassword(hash, []byte(password)) == nil && ok
}

// AuthMechanisms implements smtp.AuthSession: none before STARTTLS when
// TLS is required.
func (ss *smtpSession) AuthMechanisms() []string {
	if ss.needsTLS() {
		return nil
	}
	return smtpAuthMechanisms
}

// Auth implements smtp.AuthSession.
func (ss *smtpSession) Auth(mech string) (sasl.Server, error) {
	if ss.needsTLS() {
		return nil, ss.refuse(errTLSRequired)
	}
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(_, user, password string) error { return ss.login(user, password) }), nil
	case sasl.Login:
		return &loginServer{check: ss.login}, nil
	}
	return nil, smtp.ErrAuthUnknownMechanism
}

// login checks credentials, within the auth guard's limits when there is
// an auth file, and keeps the user name for the session's mail.
func (ss *smtpSession) login(user, password string) error {
	if len(user) > maxSMTPUser {
		user = user[:maxSMTPUser]
	}
	if users := ss.s.guard.users; users != nil {
		if err := ss.checkLogin(users, user, password); err != nil {
			return err
		}
	}
	ss.authUser = user
	return nil
}

// checkLogin checks a login against the auth file (see authGuard); a 421
// closes the connection once answered.
func (ss *smtpSession) checkLogin(users *credentials, user, password string) error {
	defer ss.tracked.begin(false)()
	g, ip := ss.s.guard.auth, ss.ip()
	if until := g.locked(ip, user); !until.IsZero() {
		ss.closeAfterReply()
		return ss.refuse(authLocked(until))
	}
	ok, ran := g.compare(func() bool { return users.check(user, password) })
	switch {
	case !ran:
		return ss.refuse(errAuthBusy)
	case ok:
		g.succeeded(ip, user)
		return nil
	}
	time.Sleep(g.failed(ip, user))
	ss.record(errAuthFailed.Code, fmt.Sprintf("authentication failed for user %q", user), nil)
	return errAuthFailed
}

// loginServer is the server side of the LOGIN mechanism (go-sasl has only
// its client): it asks for the user name, then the password.
type loginServer struct {
	check func(user, password string) error
	user  string
	step  int
}

// Next implements sasl.Server.
func (l *loginServer) Next(response []byte) (challenge []byte, done bool, err error) {
	switch l.step {
	case 0:
		l.step++
		if len(response) == 0 { // no initial response
			return []byte("Username:"), false, nil
		}
		l.user = string(response)
		l.step++
		return []byte("Password:"), false, nil
	case 1:
		l.user = string(response)
		l.step++
		return []byte("Password:"), false, nil
	case 2:
		l.step++
		return nil, true, l.check(l.user, string(response))
	}
	return nil, false, errors.New("unexpected response")
}

package smtpd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"golang.org/x/crypto/bcrypt"
)

// SMTP AUTH: PLAIN and LOGIN are offered on every connection, plaintext
// included (this is a sandbox). Without an auth file any user name and
// password are accepted and none are needed; the user name is kept with
// the mail. With one (Settings.AuthFile) mail needs a login it accepts.

// smtpAuthMechanisms are the SASL mechanisms offered.
var smtpAuthMechanisms = []string{sasl.Plain, sasl.Login}

// maxSMTPUser bounds a user name kept with a mail.
const maxSMTPUser = 255

// credentials maps user names to bcrypt hashes.
type credentials map[string][]byte

// loadCredentials reads an htpasswd-style file: USER:BCRYPT-HASH lines,
// blank lines and # comments ignored. "" loads nothing (nil).
func loadCredentials(path string) (credentials, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: SMTP auth file: %w", err)
	}
	users := credentials{}
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
		if _, err := bcrypt.Cost([]byte(hash)); err != nil {
			return nil, fmt.Errorf("config: SMTP auth file %s, line %d: the hash of %q is not bcrypt (htpasswd -B makes one): %w", path, n, user, err)
		}
		users[user] = []byte(hash)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("config: SMTP auth file %s: %w", path, err)
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("config: SMTP auth file %s holds no user", path)
	}
	return users, nil
}

// errAuthFailed is the answer to credentials the auth file refuses.
var errAuthFailed = &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "authentication credentials invalid"}

// check accepts any login without an auth file, else the file's.
func (c credentials) check(user, password string) bool {
	if c == nil {
		return true
	}
	hash, ok := c[user]
	return ok && bcrypt.CompareHashAndPassword(hash, []byte(password)) == nil
}

// AuthMechanisms implements smtp.AuthSession.
func (ss *smtpSession) AuthMechanisms() []string { return smtpAuthMechanisms }

// Auth implements smtp.AuthSession.
func (ss *smtpSession) Auth(mech string) (sasl.Server, error) {
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(_, user, password string) error { return ss.login(user, password) }), nil
	case sasl.Login:
		return &loginServer{check: ss.login}, nil
	}
	return nil, smtp.ErrAuthUnknownMechanism
}

// login checks credentials and keeps the user name for the session's mail.
func (ss *smtpSession) login(user, password string) error {
	if !ss.s.guard.users.check(user, password) {
		ss.record(errAuthFailed.Code, fmt.Sprintf("authentication failed for user %q", user), nil)
		return errAuthFailed
	}
	if len(user) > maxSMTPUser {
		user = user[:maxSMTPUser]
	}
	ss.authUser = user
	return nil
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

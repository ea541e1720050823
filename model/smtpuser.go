package model

// MetadataSMTPUser is the key, in the parsed content's metadata extension
// object, of the user name the sender authenticated with over SMTP (SMTP
// AUTH); absent when it did not.
const MetadataSMTPUser = "smtpUser"

// SMTPUser is the user name the sender authenticated with over SMTP, or ""
// (none, or the content is not loaded).
func (e Email) SMTPUser() string {
	user, _ := e.Metadata[MetadataSMTPUser].(string)
	return user
}

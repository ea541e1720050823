package server

import "errors"

// smtpDefaults applies and checks the SMTP limits of the config.
func (cfg *Config) smtpDefaults() error {
	if cfg.SMTPRequireTLS && cfg.TLSConfig == nil {
		return errors.New("config: requiring TLS on SMTP needs a TLS certificate")
	}
	if cfg.SMTPMaxConns < 0 || cfg.SMTPMaxConnsPerIP < 0 || cfg.SMTPIdleTimeout < 0 || cfg.SMTPBufferBytes < 0 {
		return errors.New("config: SMTP connection limits, idle timeout and buffer size must be positive")
	}
	if cfg.SMTPAuthMaxFailures < 0 || cfg.SMTPAuthMaxFailuresPerIP < 0 || cfg.SMTPAuthLockout < 0 {
		return errors.New("config: SMTP AUTH failure limits and lockout must be positive")
	}
	if cfg.SMTPAuthMaxFailures == 0 {
		cfg.SMTPAuthMaxFailures = DefaultSMTPAuthMaxFailures
	}
	if cfg.SMTPAuthMaxFailuresPerIP == 0 {
		cfg.SMTPAuthMaxFailuresPerIP = max(DefaultSMTPAuthMaxFailuresPerIP, cfg.SMTPAuthMaxFailures)
	}
	if cfg.SMTPAuthLockout == 0 {
		cfg.SMTPAuthLockout = DefaultSMTPAuthLockout
	}
	if cfg.SMTPMaxConns == 0 {
		cfg.SMTPMaxConns = DefaultSMTPMaxConns
	}
	if cfg.SMTPMaxConnsPerIP == 0 {
		cfg.SMTPMaxConnsPerIP = min(DefaultSMTPMaxConnsPerIP, cfg.SMTPMaxConns)
	}
	if cfg.SMTPIdleTimeout == 0 {
		cfg.SMTPIdleTimeout = DefaultSMTPIdleTimeout
	}
	if cfg.SMTPNoProgressTimeout < 0 {
		return errors.New("config: the SMTP no-progress timeout must be positive")
	}
	if cfg.SMTPNoProgressTimeout == 0 {
		cfg.SMTPNoProgressTimeout = DefaultSMTPNoProgressTimeout
	}
	if cfg.SMTPBufferBytes == 0 {
		cfg.SMTPBufferBytes = DefaultSMTPBufferBytes
	}
	// One message of the largest size must fit, with the byte that tells
	// it is too large.
	cfg.SMTPBufferBytes = max(cfg.SMTPBufferBytes, cfg.MaxMessageBytes+1)
	return nil
}

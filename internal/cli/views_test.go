package cli

import (
	"sandview/internal/cli/email"
	"sandview/internal/cli/inbox"
	"sandview/internal/cli/mcp"
)

// The JSON the commands print, by the names the tests decode it with.
type (
	emailView    = email.View
	checkView    = email.CheckView
	inboxView    = inbox.View
	mcpEmail     = mcp.Email
	mcpInbox     = mcp.Inbox
	mcpExtracted = mcp.Extracted
	mcpWaited    = mcp.Waited
)

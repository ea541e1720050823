// Package conformance holds the client contract's conformance suite (the
// contract's table of "Required behaviors"); it has only
// tests. Every row of the table is a named test in one of three groups:
//
//   - TestConformance_Unit_*: no server.
//   - TestConformance_Integration_*: a server, no SMTP (mail comes from the
//     test-email endpoint, Client.SendTestEmail).
//   - TestConformance_E2E_*: a server and SMTP.
//
// With SERVICE_URL and SERVICE_API_KEY set, the integration and
// end-to-end groups run against that server (end-to-end also needs
// SMTP_HOST; SMTP_PORT defaults to 25). Without them they start the
// embedded server in-process, so all three groups always run. Against a
// deployed server the suite creates and deletes inboxes, and the
// delete-all row deletes every inbox of the API key.
package conformance

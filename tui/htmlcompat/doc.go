// Package htmlcompat reports which HTML and CSS features of an email's
// HTML common email clients do not support, from caniemail's data
// (embedded; refreshed by scripts/update-caniemail.sh). It parses the
// HTML (golang.org/x/net/html) and the CSS of style attributes and
// <style> blocks — a pragmatic subset: elements, attributes, image
// formats, properties, functions, units, at-rules and selectors — and
// scores the document like Mailpit does. Pure analysis: no I/O.
package htmlcompat

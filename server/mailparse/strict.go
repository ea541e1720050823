package mailparse

import (
	"bufio"
	"bytes"
	"mime"
	"net/textproto"
	"strconv"
)

// maxStrictDepth bounds the MIME nesting the strict parser follows; deeper
// messages go to the tolerant parser.
const maxStrictDepth = 16

// parseStrict reads a well-formed message with the standard library's
// header and media-type parsers and a boundary splitter that works on whole
// slices, several times faster than enmime's byte-at-a-time scanning. It
// gives up (ok false) at the first irregularity — a malformed header or
// media type, a missing or unclosed boundary, excessive nesting — and leaves
// such messages to the tolerant enmime path. Part contents alias raw.
func parseStrict(raw []byte) (root *part, ok bool) {
	header, body, ok := readHeaderBlock(raw)
	if !ok {
		return nil, false
	}
	return strictPart("0", header, body, 0)
}

// readHeaderBlock parses the header section at the start of b and returns
// what follows the empty line that ends it.
func readHeaderBlock(b []byte) (textproto.MIMEHeader, []byte, bool) {
	src := bytes.NewReader(b)
	buffered := bufio.NewReaderSize(src, min(len(b), 4096))
	header, err := textproto.NewReader(buffered).ReadMIMEHeader()
	if err != nil {
		return nil, nil, false
	}
	return header, b[len(b)-src.Len()-buffered.Buffered():], true
}

// strictPart builds one part and, for a multipart, its children.
func strictPart(id string, header textproto.MIMEHeader, body []byte, depth int) (*part, bool) {
	p := &part{id: id, header: header, contentType: contentTypeText}
	var typeParams map[string]string
	if value := header.Get("Content-Type"); value != "" {
		mediaType, params, err := mime.ParseMediaType(value)
		if err != nil {
			return nil, false
		}
		p.contentType, typeParams = mediaType, params
		p.charset, p.boundary = params["charset"], params["boundary"]
	}
	filename := ""
	if value := header.Get("Content-Disposition"); value != "" {
		disposition, params, err := mime.ParseMediaType(value)
		if err != nil {
			return nil, false
		}
		p.disposition, filename = disposition, params["filename"]
	}
	if filename == "" {
		filename = typeParams["name"]
	}
	p.filename = decodeHeaderValue(filename)
	p.contentID = contentIDFrom(header.Get("Content-Id"))

	if !p.isMultipart() {
		p.content = body
		return p, true
	}
	if depth >= maxStrictDepth {
		return nil, false
	}
	bodies, ok := splitMultipart(body, p.boundary)
	if !ok {
		return nil, false
	}
	for i, childBody := range bodies {
		childHeader, childContent, ok := readHeaderBlock(childBody)
		if !ok {
			return nil, false
		}
		childID := strconv.Itoa(i + 1)
		if depth > 0 {
			childID = id + "." + childID
		}
		child, ok := strictPart(childID, childHeader, childContent, depth+1)
		if !ok {
			return nil, false
		}
		p.children = append(p.children, child)
	}
	return p, true
}

// splitMultipart returns the parts (headers and content) between the
// delimiter lines of boundary (RFC 2046 5.1.1): "--boundary" at the start
// of a line, optionally followed by spaces, and the closing "--boundary--".
// The line break before a delimiter belongs to it. The preamble and the
// epilogue are dropped. ok is false when there is no part or no closing
// delimiter.
func splitMultipart(body []byte, boundary string) (parts [][]byte, ok bool) {
	delimiter := []byte("--" + boundary)
	partStart := -1
	for search := 0; search < len(body); {
		at := bytes.Index(body[search:], delimiter)
		if at < 0 {
			return nil, false
		}
		at += search
		search = at + 1
		if at > 0 && body[at-1] != '\n' {
			continue
		}
		lineEnd, closing, isDelimiter := delimiterLineEnd(body, at+len(delimiter))
		if !isDelimiter {
			continue
		}
		if partStart >= 0 {
			end := at
			if end > partStart && body[end-1] == '\n' {
				end--
				if end > partStart && body[end-1] == '\r' {
					end--
				}
			}
			parts = append(parts, body[partStart:end])
		}
		if closing {
			return parts, len(parts) > 0
		}
		partStart, search = lineEnd, lineEnd
	}
	return nil, false
}

// delimiterLineEnd checks what follows "--boundary" at body[from:]: an
// optional "--" (closing), optional spaces, then a line break or the end.
// lineEnd is where the next line starts.
func delimiterLineEnd(body []byte, from int) (lineEnd int, closing, isDelimiter bool) {
	i := from
	if bytes.HasPrefix(body[i:], []byte("--")) {
		closing = true
		i += 2
	}
	for i < len(body) && (body[i] == ' ' || body[i] == '\t') {
		i++
	}
	switch {
	case i == len(body):
		return i, closing, true
	case body[i] == '\n':
		return i + 1, closing, true
	case body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n':
		return i + 2, closing, true
	}
	return 0, false, false
}

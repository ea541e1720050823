package crypto

// wire is a payload in binary form, laid out in one buffer. transcript
// is the exact message the server signs:
//
//	version (1 byte) ‖ "KEM:SIG:AEAD:KDF" ‖ context ‖ ct_kem ‖ nonce ‖ aad ‖
//	ciphertext ‖ server_sig_pk
//
// ctKem, nonce, aad, ciphertext and serverSigPk are sub-slices of transcript,
// so decoding or sealing the fields builds the transcript without copying;
// sig follows it in the same buffer.
type wire struct {
	transcript  []byte
	ctKem       []byte
	nonce       []byte
	aad         []byte
	ciphertext  []byte // AES-GCM ciphertext followed by the tag
	serverSigPk []byte
	sig         []byte
}

// newWire lays out a wire for aadLen bytes of aad and ctLen bytes of
// ciphertext (tag included) and writes the transcript prefix. It uses
// scratch when that is large enough and allocates otherwise.
func newWire(scratch []byte, algs Algs, context string, aadLen, ctLen int) wire {
	transcriptLen := transcriptSize(algs, context, aadLen, ctLen)
	buf := scratch[:0]
	if cap(buf) < transcriptLen+SignatureSize {
		buf = make([]byte, 0, transcriptLen+SignatureSize)
	}

	buf = append(buf, payloadVersion)
	buf = append(buf, algs.KEM...)
	buf = append(buf, ':')
	buf = append(buf, algs.Sig...)
	buf = append(buf, ':')
	buf = append(buf, algs.AEAD...)
	buf = append(buf, ':')
	buf = append(buf, algs.KDF...)
	buf = append(buf, context...)

	var w wire
	off := len(buf)
	buf = buf[:transcriptLen+SignatureSize]
	next := func(n int) []byte {
		s := buf[off : off+n : off+n]
		off += n
		return s
	}
	w.ctKem = next(KEMCiphertextSize)
	w.nonce = next(NonceSize)
	w.aad = next(aadLen)
	w.ciphertext = next(ctLen)
	w.serverSigPk = next(SigPublicKeySize)
	w.transcript = buf[:transcriptLen:transcriptLen]
	w.sig = next(SignatureSize)
	return w
}

// transcriptSize is the length of the transcript of a payload with
// aadLen bytes of aad and ctLen bytes of ciphertext (tag included); a
// wire takes SignatureSize more.
func transcriptSize(algs Algs, context string, aadLen, ctLen int) int {
	prefixLen := 1 + len(algs.KEM) + 1 + len(algs.Sig) + 1 + len(algs.AEAD) + 1 + len(algs.KDF) + len(context)
	return prefixLen + KEMCiphertextSize + NonceSize + aadLen + ctLen + SigPublicKeySize
}

package s3tables

// encryptionHint says where encryption at rest is decided.
const encryptionHint = "encrypt the warehouse storage itself"

func (s *Server) getBucketEncryption(req *request) (any, error) {
	return absent("encryption configuration")(req)
}

func (s *Server) putBucketEncryption(req *request) (any, error) {
	return unmanaged("encryption", encryptionHint)(req)
}

func (s *Server) deleteBucketEncryption(req *request) (any, error) {
	return unmanaged("encryption", encryptionHint)(req)
}

func (s *Server) getTableEncryption(req *request) (any, error) {
	return absent("encryption configuration")(req)
}

package s3tables

// operation is what the encoder needs to know of one operation of the
// S3 Tables model (s3tables 2018-05-10): the exceptions its error list
// names that differ between operations. An SDK types an error only when
// the operation lists its exception; an unlisted one reaches the caller as
// a generic API error that errors.As on the SDK's types cannot match.
type operation struct {
	name string
	// accessDenied: the operation lists AccessDeniedException; every
	// operation lists ForbiddenException, the refusal used otherwise.
	accessDenied bool
	// conflict: the operation lists ConflictException; a conflict on one
	// that does not is answered as BadRequestException.
	conflict bool
}

// Read from the model's error lists (the SDK's generated deserializers,
// github.com/aws/aws-sdk-go-v2/service/s3tables v1.16.2). Every operation
// lists BadRequest, Forbidden, InternalServerError, NotFound and
// TooManyRequests.
var (
	listsAccessDenied = set("DeleteTableBucketReplication", "DeleteTableReplication", "GetNamespace", "GetTable",
		"GetTableBucket", "GetTableBucketEncryption", "GetTableBucketReplication", "GetTableBucketStorageClass",
		"GetTableEncryption", "GetTableReplication", "GetTableStorageClass", "ListNamespaces", "ListTableBuckets",
		"PutTableBucketReplication", "PutTableReplication")
	lacksConflict = set("GetTableBucketEncryption", "GetTableBucketStorageClass", "GetTableEncryption",
		"GetTableStorageClass", "GetTableRecordExpirationConfiguration", "GetTableRecordExpirationJobStatus",
		"PutTableRecordExpirationConfiguration")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func operationNamed(name string) operation {
	return operation{name: name, accessDenied: listsAccessDenied[name], conflict: !lacksConflict[name]}
}

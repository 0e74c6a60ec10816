package s3tables

// routeTable lists every operation this surface answers: method, path as
// the restJson1 model writes it ({x} is one path segment, percent-decoded),
// whether it writes, and its handler. Operations floe does not manage
// (policies, encryption, replication, metrics, storage classes, record
// expiration) have routes too, so their callers get a sentence instead of a
// bare 404.
func (s *Server) routeTable() []route {
	return []route{
		{"PUT", "/buckets", write, s.createTableBucket},
		{"GET", "/buckets", read, s.listTableBuckets},
		{"GET", "/buckets/{tableBucketARN}", read, s.getTableBucket},
		{"DELETE", "/buckets/{tableBucketARN}", write, s.deleteTableBucket},
		{"GET", "/buckets/{tableBucketARN}/maintenance", read, s.getBucketMaintenance},
		{"PUT", "/buckets/{tableBucketARN}/maintenance/{type}", write, s.putBucketMaintenance},

		{"PUT", "/namespaces/{tableBucketARN}", write, s.createNamespace},
		{"GET", "/namespaces/{tableBucketARN}", read, s.listNamespaces},
		{"GET", "/namespaces/{tableBucketARN}/{namespace}", read, s.getNamespace},
		{"DELETE", "/namespaces/{tableBucketARN}/{namespace}", write, s.deleteNamespace},

		{"PUT", "/tables/{tableBucketARN}/{namespace}", write, s.createTable},
		{"GET", "/tables/{tableBucketARN}", read, s.listTables},
		{"GET", "/get-table", read, s.getTable},
		{"DELETE", "/tables/{tableBucketARN}/{namespace}/{name}", write, s.deleteTable},
		{"PUT", "/tables/{tableBucketARN}/{namespace}/{name}/rename", write, s.renameTable},
		{"GET", "/tables/{tableBucketARN}/{namespace}/{name}/metadata-location", read, s.getMetadataLocation},
		{"PUT", "/tables/{tableBucketARN}/{namespace}/{name}/metadata-location", write, s.updateMetadataLocation},
		{"GET", "/tables/{tableBucketARN}/{namespace}/{name}/maintenance", read, s.getTableMaintenance},
		{"PUT", "/tables/{tableBucketARN}/{namespace}/{name}/maintenance/{type}", write, s.putTableMaintenance},
		{"GET", "/tables/{tableBucketARN}/{namespace}/{name}/maintenance-job-status", read, s.getMaintenanceJobStatus},

		{"GET", "/tag/{resourceArn}", read, s.listTags},
		{"POST", "/tag/{resourceArn}", write, s.tagResource},
		{"DELETE", "/tag/{resourceArn}", write, s.untagResource},

		{"GET", "/buckets/{tableBucketARN}/policy", read, absent("resource policies")},
		{"PUT", "/buckets/{tableBucketARN}/policy", write, unmanaged("resource policies", policyHint)},
		{"DELETE", "/buckets/{tableBucketARN}/policy", write, unmanaged("resource policies", policyHint)},
		{"GET", "/tables/{tableBucketARN}/{namespace}/{name}/policy", read, absent("resource policies")},
		{"PUT", "/tables/{tableBucketARN}/{namespace}/{name}/policy", write, unmanaged("resource policies", policyHint)},
		{"DELETE", "/tables/{tableBucketARN}/{namespace}/{name}/policy", write, unmanaged("resource policies", policyHint)},
		{"GET", "/buckets/{tableBucketARN}/encryption", read, absent("encryption configuration")},
		{"PUT", "/buckets/{tableBucketARN}/encryption", write, unmanaged("encryption", encryptionHint)},
		{"DELETE", "/buckets/{tableBucketARN}/encryption", write, unmanaged("encryption", encryptionHint)},
		{"GET", "/tables/{tableBucketARN}/{namespace}/{name}/encryption", read, absent("encryption configuration")},
		{"GET", "/table-bucket-replication", read, absent("replication")},
		{"PUT", "/table-bucket-replication", write, unmanaged("replication", "")},
		{"DELETE", "/table-bucket-replication", write, unmanaged("replication", "")},
		{"GET", "/table-replication", read, absent("replication")},
		{"PUT", "/table-replication", write, unmanaged("replication", "")},
		{"DELETE", "/table-replication", write, unmanaged("replication", "")},
		{"GET", "/replication-status", read, absent("replication")},
		{"GET", "/buckets/{tableBucketARN}/metrics", read, absent("metrics configuration")},
		{"PUT", "/buckets/{tableBucketARN}/metrics", write, unmanaged("metrics configuration", "")},
		{"DELETE", "/buckets/{tableBucketARN}/metrics", write, unmanaged("metrics configuration", "")},
		{"GET", "/buckets/{tableBucketARN}/storage-class", read, absent("storage classes")},
		{"PUT", "/buckets/{tableBucketARN}/storage-class", write, unmanaged("storage classes", "")},
		{"GET", "/tables/{tableBucketARN}/{namespace}/{name}/storage-class", read, absent("storage classes")},
		{"GET", "/table-record-expiration", read, absent("record expiration")},
		{"PUT", "/table-record-expiration", write, unmanaged("record expiration", "")},
		{"GET", "/table-record-expiration-job-status", read, absent("record expiration")},
	}
}

const (
	policyHint     = "access is governed by floe API keys: a role (readwrite or readonly) and an optional bucket scope"
	encryptionHint = "encrypt the warehouse storage itself"
)

package s3tables

import "github.com/floe/floe/edge"

// routes registers every operation this surface answers: its ServeMux
// pattern (the restJson1 model's method and path; {x} is one path segment,
// percent-decoded, so an ARN sent with its "/" encoded stays one), the
// operation's name in the model (which decides how its refusals are typed,
// model.go), whether it writes, and its handler. Operations floe does not
// manage (replication, metrics, storage classes, record expiration) have
// routes too, so their callers get a sentence instead of
// a bare 404.
func (s *Server) routes() {
	s.op("PUT /buckets", "CreateTableBucket", write, s.createTableBucket)
	s.op("GET /buckets", "ListTableBuckets", read, s.listTableBuckets)
	s.op("GET /buckets/{tableBucketARN}", "GetTableBucket", read, s.getTableBucket)
	s.op("DELETE /buckets/{tableBucketARN}", "DeleteTableBucket", write, s.deleteTableBucket)
	s.op("GET /buckets/{tableBucketARN}/maintenance", "GetTableBucketMaintenanceConfiguration", read, s.getBucketMaintenance)
	s.op("PUT /buckets/{tableBucketARN}/maintenance/{type}", "PutTableBucketMaintenanceConfiguration", write, s.putBucketMaintenance)
	s.op("GET /buckets/{tableBucketARN}/encryption", "GetTableBucketEncryption", read, s.getBucketEncryption)
	s.op("PUT /buckets/{tableBucketARN}/encryption", "PutTableBucketEncryption", write, s.putBucketEncryption)
	s.op("DELETE /buckets/{tableBucketARN}/encryption", "DeleteTableBucketEncryption", write, s.deleteBucketEncryption)

	s.op("PUT /namespaces/{tableBucketARN}", "CreateNamespace", write, s.createNamespace)
	s.op("GET /namespaces/{tableBucketARN}", "ListNamespaces", read, s.listNamespaces)
	s.op("GET /namespaces/{tableBucketARN}/{namespace}", "GetNamespace", read, s.getNamespace)
	s.op("DELETE /namespaces/{tableBucketARN}/{namespace}", "DeleteNamespace", write, s.deleteNamespace)

	s.op("PUT /tables/{tableBucketARN}/{namespace}", "CreateTable", write, s.createTable)
	s.op("GET /tables/{tableBucketARN}", "ListTables", read, s.listTables)
	s.op("GET /get-table", "GetTable", read, s.getTable)
	s.op("DELETE /tables/{tableBucketARN}/{namespace}/{name}", "DeleteTable", write, s.deleteTable)
	s.op("PUT /tables/{tableBucketARN}/{namespace}/{name}/rename", "RenameTable", write, s.renameTable)
	s.op("GET /tables/{tableBucketARN}/{namespace}/{name}/metadata-location", "GetTableMetadataLocation", read, s.getMetadataLocation)
	s.op("PUT /tables/{tableBucketARN}/{namespace}/{name}/metadata-location", "UpdateTableMetadataLocation", write, s.updateMetadataLocation)
	s.op("GET /tables/{tableBucketARN}/{namespace}/{name}/maintenance", "GetTableMaintenanceConfiguration", read, s.getTableMaintenance)
	s.op("PUT /tables/{tableBucketARN}/{namespace}/{name}/maintenance/{type}", "PutTableMaintenanceConfiguration", write, s.putTableMaintenance)
	s.op("GET /tables/{tableBucketARN}/{namespace}/{name}/maintenance-job-status", "GetTableMaintenanceJobStatus", read, s.getMaintenanceJobStatus)
	s.op("GET /tables/{tableBucketARN}/{namespace}/{name}/encryption", "GetTableEncryption", read, s.getTableEncryption)

	s.op("GET /tag/{resourceArn}", "ListTagsForResource", read, s.listTags)
	s.op("POST /tag/{resourceArn}", "TagResource", write, s.tagResource)
	s.op("DELETE /tag/{resourceArn}", "UntagResource", write, s.untagResource)

	s.op("GET /buckets/{tableBucketARN}/policy", "GetTableBucketPolicy", read, s.getBucketPolicy)
	s.op("PUT /buckets/{tableBucketARN}/policy", "PutTableBucketPolicy", write, s.putBucketPolicy)
	s.op("DELETE /buckets/{tableBucketARN}/policy", "DeleteTableBucketPolicy", write, s.deleteBucketPolicy)
	s.op("GET /tables/{tableBucketARN}/{namespace}/{name}/policy", "GetTablePolicy", read, s.getTablePolicy)
	s.op("PUT /tables/{tableBucketARN}/{namespace}/{name}/policy", "PutTablePolicy", write, s.putTablePolicy)
	s.op("DELETE /tables/{tableBucketARN}/{namespace}/{name}/policy", "DeleteTablePolicy", write, s.deleteTablePolicy)
	s.op("GET /table-bucket-replication", "GetTableBucketReplication", read, absent("replication"))
	s.op("PUT /table-bucket-replication", "PutTableBucketReplication", write, unmanaged("replication", ""))
	s.op("DELETE /table-bucket-replication", "DeleteTableBucketReplication", write, unmanaged("replication", ""))
	s.op("GET /table-replication", "GetTableReplication", read, absent("replication"))
	s.op("PUT /table-replication", "PutTableReplication", write, unmanaged("replication", ""))
	s.op("DELETE /table-replication", "DeleteTableReplication", write, unmanaged("replication", ""))
	s.op("GET /replication-status", "GetTableReplicationStatus", read, absent("replication"))
	s.op("GET /buckets/{tableBucketARN}/metrics", "GetTableBucketMetricsConfiguration", read, absent("metrics configuration"))
	s.op("PUT /buckets/{tableBucketARN}/metrics", "PutTableBucketMetricsConfiguration", write, unmanaged("metrics configuration", ""))
	s.op("DELETE /buckets/{tableBucketARN}/metrics", "DeleteTableBucketMetricsConfiguration", write, unmanaged("metrics configuration", ""))
	s.op("GET /buckets/{tableBucketARN}/storage-class", "GetTableBucketStorageClass", read, absent("storage classes"))
	s.op("PUT /buckets/{tableBucketARN}/storage-class", "PutTableBucketStorageClass", write, unmanaged("storage classes", ""))
	s.op("GET /tables/{tableBucketARN}/{namespace}/{name}/storage-class", "GetTableStorageClass", read, absent("storage classes"))
	s.op("GET /table-record-expiration", "GetTableRecordExpirationConfiguration", read, absent("record expiration"))
	s.op("PUT /table-record-expiration", "PutTableRecordExpirationConfiguration", write, unmanaged("record expiration", ""))
	s.op("GET /table-record-expiration-job-status", "GetTableRecordExpirationJobStatus", read, absent("record expiration"))
}

// op registers one operation on the edge.
func (s *Server) op(pattern, name string, a access, h handlerFunc) {
	s.ops[pattern] = operationNamed(name)
	ea := edge.Reads
	if a == write {
		ea = edge.Writes
	}
	s.surface.Handle(pattern, s.serve(a, h), edge.Op(name, ea))
}

import WebImageCodecs
import Foundation

/// Where S3 objects are fetched from and with which credentials: AWS itself, or an S3-compatible
/// store (MinIO, Ceph, R2) at ``endpoint`` with path-style addressing.
public struct S3Configuration: Sendable {
    /// What requests are signed with.
    public var credentials: AWSCredentials
    /// The region requests are signed for (`us-east-1` unless told).
    public var region: String
    /// An S3-compatible store's base URL (`http://127.0.0.1:9000`): objects are at
    /// `ENDPOINT/bucket/key` (path-style). Nil: AWS, at `https://bucket.s3.REGION.amazonaws.com/key`
    /// (path-style at `s3.REGION.amazonaws.com` for a bucket name with a dot or capital letter).
    public var endpoint: URL?

    /// A configuration from its parts.
    public init(credentials: AWSCredentials, region: String = "us-east-1", endpoint: URL? = nil) {
        self.credentials = credentials
        self.region = region
        self.endpoint = endpoint
    }

    /// The configuration the AWS way: ``AWSCredentials/fromEnvironment(_:)``, the region from
    /// `AWS_REGION` (else `AWS_DEFAULT_REGION`, else `us-east-1`), and `endpoint`; nil without
    /// credentials.
    public static func fromEnvironment(endpoint: URL? = nil,
                                       _ environment: [String: String] = ProcessInfo.processInfo.environment) -> S3Configuration? {
        guard let credentials = AWSCredentials.fromEnvironment(environment) else { return nil }
        let region = [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"]]
            .compactMap { $0 }.first { !$0.isEmpty } ?? "us-east-1"
        return S3Configuration(credentials: credentials, region: region, endpoint: endpoint)
    }

    /// ``WebImageError/Code/invalidURL`` unless the endpoint is an http(s) URL with a valid host
    /// and port (``URLOrigin``) and no query, and the region is a plain name.
    public func validate() throws(WebImageError) {
        guard !region.isEmpty, region.utf8.count <= 64,
              region.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
            throw WebImageError(.invalidURL, "The S3 region \"\(region.prefix(64))\" is not a region name.")
        }
        guard let endpoint else { return }
        _ = try URLOrigin(validating: endpoint)
        guard endpoint.query == nil, endpoint.fragment == nil, endpoint.user == nil else {
            throw WebImageError(.invalidURL, "The S3 endpoint \(endpoint.absoluteString) must have no user, query or fragment.")
        }
    }

    /// The http(s) URL of the object at `location`.
    func objectURL(_ location: S3Location) -> URL? {
        if let endpoint {
            var base = endpoint.absoluteString
            while base.hasSuffix("/") { base.removeLast() }
            return URL(string: base + "/" + AWSSigner.encode(Array(location.bucket.utf8)) + "/" + location.encodedKey)
        }
        let bucket = location.bucket
        if !bucket.contains("."), bucket == bucket.lowercased(), !bucket.contains("_") {
            return URL(string: "https://\(bucket).s3.\(region).amazonaws.com/" + location.encodedKey)
        }
        return URL(string: "https://s3.\(region).amazonaws.com/" + AWSSigner.encode(Array(bucket.utf8)) + "/" + location.encodedKey)
    }
}

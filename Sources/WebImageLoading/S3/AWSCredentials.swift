import WebImageCodecs
import Foundation

/// An AWS access key, its secret and, for temporary credentials, the session token: what
/// ``AWSSigner`` signs with.
public struct AWSCredentials: Sendable, Equatable {
    /// The access key id (`AKIA…`).
    public var accessKeyID: String
    /// The secret access key.
    public var secretAccessKey: String
    /// The session token of temporary credentials, sent as `X-Amz-Security-Token`; nil for none.
    public var sessionToken: String?

    /// Credentials from their parts.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The credentials the AWS way: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and, when set,
    /// `AWS_SESSION_TOKEN` from `environment`; nil when either of the first two is missing or empty.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> AWSCredentials? {
        guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty,
              let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else { return nil }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
    }
}

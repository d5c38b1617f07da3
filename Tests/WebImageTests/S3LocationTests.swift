import Foundation
import Testing
import WebImageCodecs
@testable import WebImageLoading

/// `s3://bucket/key` parsed, and the object URL each kind of store is asked at.
@Suite("S3 locations and object URLs")
struct S3LocationTests {
    let credentials = AWSCredentials(accessKeyID: "a", secretAccessKey: "b")

    @Test func theKeyIsDecodedOnceAndEncodedForTheRequest() throws {
        let location = try S3Location(try #require(URL(string: "s3://images/photos/a%20b%2Bc/%25.jpg?versionId=1")))
        #expect(location.bucket == "images")
        #expect(location.key == "photos/a b+c/%.jpg")
        #expect(location.encodedKey == "photos/a%20b%2Bc/%25.jpg")
    }

    @Test(arguments: ["s3://images", "s3://images/", "s3:///key", "s3://im@ges/key", "s3://images:9/key",
                      "s3://user@images/key", "s3://images/%00.jpg", "http://images/key"])
    func malformedLocationsAreInvalid(source: String) throws {
        let url = try #require(URL(string: source))
        #expect(throws: WebImageError.self) { try S3Location(url) }
    }

    @Test func aLongKeyIsRefused() throws {
        let url = try #require(URL(string: "s3://images/" + String(repeating: "k", count: 1025)))
        #expect(throws: WebImageError.self) { try S3Location(url) }
        #expect(try S3Location(try #require(URL(string: "s3://images/" + String(repeating: "k", count: 1024)))).key.count == 1024)
    }

    @Test func objectURLsForAWSAndAnEndpoint() throws {
        let plain = try S3Location(try #require(URL(string: "s3://images/a%20b.jpg")))
        let dotted = try S3Location(try #require(URL(string: "s3://my.images/a.jpg")))
        let aws = S3Configuration(credentials: credentials, region: "eu-west-1")
        #expect(aws.objectURL(plain)?.absoluteString == "https://images.s3.eu-west-1.amazonaws.com/a%20b.jpg")
        #expect(aws.objectURL(dotted)?.absoluteString == "https://s3.eu-west-1.amazonaws.com/my.images/a.jpg")
        let minio = S3Configuration(credentials: credentials, endpoint: URL(string: "http://127.0.0.1:9000/"))
        #expect(minio.objectURL(plain)?.absoluteString == "http://127.0.0.1:9000/images/a%20b.jpg")
    }

    @Test func theConfigurationIsChecked() throws {
        for endpoint in ["ftp://store:9000", "http://store:0", "http://store?x=1", "http://user@store"] {
            let configuration = S3Configuration(credentials: credentials, endpoint: URL(string: endpoint))
            #expect(throws: WebImageError.self, "\(endpoint)") { try configuration.validate() }
        }
        #expect(throws: WebImageError.self) { try S3Configuration(credentials: credentials, region: "us/east").validate() }
        try S3Configuration(credentials: credentials, region: "us-east-1", endpoint: URL(string: "https://r2.example.com")).validate()
    }

    @Test func theEnvironmentGivesCredentialsAndRegion() {
        let environment = ["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b", "AWS_DEFAULT_REGION": "eu-central-1"]
        #expect(S3Configuration.fromEnvironment(environment)?.region == "eu-central-1")
        #expect(S3Configuration.fromEnvironment(environment.merging(["AWS_REGION": "ap-south-1"]) { $1 })?.region == "ap-south-1")
        #expect(S3Configuration.fromEnvironment(["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b"])?.region == "us-east-1")
        #expect(S3Configuration.fromEnvironment([:]) == nil)
    }
}

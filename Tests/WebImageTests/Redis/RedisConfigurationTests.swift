import Testing
import WebImageRedis

@Suite("Redis URL parsing")
struct RedisConfigurationTests {
    @Test func fullURL() throws {
        let configuration = try RedisConfiguration(url: "redis://cache:s%40cret@redis.internal:6380/3")
        #expect(configuration.host == "redis.internal")
        #expect(configuration.port == 6380)
        #expect(configuration.user == "cache")
        #expect(configuration.password == "s@cret")
        #expect(configuration.database == 3)
        #expect(configuration.connectTimeoutMilliseconds == 50)
        #expect(configuration.operationTimeoutMilliseconds == 50)
        #expect(configuration.redactedDescription == "redis://redis.internal:6380/3")
    }

    @Test func defaults() throws {
        let configuration = try RedisConfiguration(url: "redis://localhost")
        #expect(configuration.port == 6379)
        #expect(configuration.database == 0)
        #expect(configuration.user == nil && configuration.password == nil)
        let passwordOnly = try RedisConfiguration(url: "redis://:pw@127.0.0.1:7000/")
        #expect(passwordOnly.user == nil && passwordOnly.password == "pw")
    }

    @Test(arguments: [
        ("http://host:6379", RedisConfigurationError.scheme("http")),
        ("rediss://host:6379", .tlsUnsupported),
        ("redis://:6379/0", .missingHost("redis://:6379/0")),
        ("redis://host:6379/x", .database("x")),
        ("redis://host:6379/1/2", .database("/1/2")),
        ("redis://host:99999", .port("99999")),
        ("not a url", .malformed("not a url")),
    ])
    func badURLs(url: String, error: RedisConfigurationError) {
        #expect(throws: error) { try RedisConfiguration(url: url) }
        #expect(!error.description.isEmpty)
    }
}

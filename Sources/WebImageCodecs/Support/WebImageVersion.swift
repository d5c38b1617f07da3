/// The library's version, as sent in the downloader's User-Agent.
public enum WebImageVersion {
    /// The library version, `MAJOR.MINOR.PATCH`.
    public static let string = "0.1.0"
}

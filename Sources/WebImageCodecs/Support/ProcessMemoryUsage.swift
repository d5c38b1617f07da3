import Foundation

/// How much memory this process holds now and has held at most: its resident set, as the kernel
/// counts it (the pages an OOM killer weighs).
public enum ProcessMemoryUsage {
    /// The resident set now, in bytes (the second field of `/proc/self/statm` times the page size),
    /// or nil where that file cannot be read.
    public static var residentBytes: Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]), pages >= 0 else { return nil }
        let page = sysconf(Int32(_SC_PAGESIZE))
        guard page > 0 else { return nil }
        return pages.multipliedReportingOverflow(by: page).partialValue
    }

    /// The largest resident set this process has had since it started, in bytes (`ru_maxrss`).
    public static var peakResidentBytes: Int {
        var usage = rusage()
        guard getrusage(thisProcess, &usage) == 0 else { return 0 }
        return usage.ru_maxrss.multipliedReportingOverflow(by: 1024).partialValue
    }

    #if canImport(Glibc)
    private static let thisProcess = __rusage_who_t(RUSAGE_SELF.rawValue)
    #else
    private static let thisProcess = RUSAGE_SELF
    #endif
}

// swift-tools-version:6.1
// Datacenter for Swift: a storage engine for app data over SQLite, and the `datacenter` tool.
import PackageDescription

let package = Package(
    name: "Datacenter",
    products: [
        // The engine an app links: stores, key-value, caches, encryption.
        .library(name: "DatacenterKit", targets: ["DatacenterKit"]),
        // The DAO engine, for apps that define their tables in XML configs of dynamic SQL.
        .library(name: "DatacenterDAO", targets: ["DatacenterDAO"]),
        .executable(name: "datacenter", targets: ["datacenter"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // System libraries, each behind a tiny shim header (macros, variadics, C globals).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0",
                       providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CNcursesW",
                       providers: [.apt(["libncursesw5-dev"])]),
        // The C library's wcwidth (hidden from Swift behind _XOPEN_SOURCE); links nothing.
        .systemLibrary(name: "CWidth"),

        // SQLCipher-compatible page encryption: a SQLite VFS, in C because a VFS is a table of
        // C callbacks over per-file C state (Swift 6 would fight its globals at every turn).
        .target(name: "CPageCipher", dependencies: ["CSQLite", "COpenSSL"]),

        // Text as a terminal shows it: cell widths, control characters escaped. The engine's
        // error excerpts, the browser and the tool all use it; it knows nothing else.
        .target(name: "DatacenterText", dependencies: ["CWidth"]),

        // The engine: no curses, no argument parser.
        .target(name: "DatacenterKit", dependencies: ["CSQLite", "COpenSSL", "DatacenterText", "CPageCipher",
                                                  .product(name: "Logging", package: "swift-log")]),

        // The DAO engine: XML configs of dynamic SQL, rendered and run on DatacenterKit's stores.
        .target(name: "DatacenterDAO", dependencies: ["DatacenterKit", "CLibXML2"]),

        // What changed: snapshots of stores, and diffs of them by value (decrypted) or as SQL.
        .target(name: "DatacenterChanges", dependencies: ["DatacenterKit", "DatacenterDAO", "CSQLite"]),

        // The browser as pure logic: state, events, rendering into a cell grid. No curses.
        .target(name: "DatacenterBrowser", dependencies: ["DatacenterKit", "DatacenterDAO", "DatacenterText", "DatacenterChanges"]),

        // The demo root and the example DAO configs the tool builds and the tests share.
        .target(name: "DatacenterDemo", dependencies: ["DatacenterKit", "DatacenterDAO"]),

        // The benchmarks behind `datacenter bench`, with their raw-SQLite baselines.
        .target(name: "DatacenterBench", dependencies: ["DatacenterKit", "DatacenterDAO", "DatacenterBrowser",
                                                        "DatacenterDemo", "CSQLite", "CPageCipher"]),

        // The command-line tool (and the curses edge of the browser).
        .executableTarget(name: "datacenter", dependencies: [
            "DatacenterKit", "DatacenterDAO", "DatacenterBrowser", "DatacenterDemo", "DatacenterBench", "DatacenterText", "DatacenterChanges",
            "CNcursesW",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // What every test target shares: temporary folders, the seeded generator, the watchdog.
        .target(name: "DatacenterTestSupport", dependencies: ["DatacenterKit"], path: "Tests/DatacenterTestSupport"),

        .testTarget(name: "DatacenterKitTests", dependencies: ["DatacenterKit", "DatacenterText", "DatacenterTestSupport"]),
        .testTarget(name: "DatacenterDAOTests", dependencies: ["DatacenterDAO", "DatacenterKit", "DatacenterTestSupport"]),
        .testTarget(name: "DatacenterBrowserTests", dependencies: ["DatacenterBrowser", "DatacenterKit", "DatacenterDAO", "DatacenterText",
                                                                   "DatacenterDemo", "DatacenterTestSupport"],
                    exclude: ["Snapshots"]),
        // A writer the kill -9 tests kill at random moments (test support, not a product).
        .executableTarget(name: "crash-writer", dependencies: ["DatacenterKit", "DatacenterDAO"], path: "Tests/CrashWriter"),

        .testTarget(name: "DatacenterChangesTests", dependencies: ["DatacenterChanges", "DatacenterKit", "DatacenterDAO", "DatacenterDemo",
                                                                   "DatacenterTestSupport"]),
        .testTarget(name: "DatacenterCLITests", dependencies: ["datacenter", "crash-writer", "DatacenterKit", "DatacenterDAO", "DatacenterText",
                                                               "DatacenterDemo", "DatacenterTestSupport",
                                                               .product(name: "ArgumentParser", package: "swift-argument-parser")]),
    ],
    swiftLanguageModes: [.v6]
)

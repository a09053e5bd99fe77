@_exported import Executors

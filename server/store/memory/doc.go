// Package memory is the store.Store that keeps everything in process
// memory: nothing survives the process.
package memory

package mcpwire

import (
	"reflect"
	"unsafe"
)

// SetErrorCode sets the JSON-RPC code of err, the error response mcp-go's
// server is about to send (as its OnError hook is handed it), and reports
// whether err was one.
//
// mcp-go (v1.2.1, server/handler_errors.go) sends every error a resource
// or prompt handler returns as -32603 and has no option, middleware or
// error type to choose the code. The response is an unexported
// *requestError; its code field is set here through reflection.
// TestSetErrorCode fails should a new mcp-go change that type, and
// SetErrorCode then leaves the code alone.
func SetErrorCode(err error, code int) bool {
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	v = v.Elem()
	if t := v.Type(); t.Name() != "requestError" || t.PkgPath() != "github.com/mark3labs/mcp-go/server" {
		return false
	}
	f := v.FieldByName("code")
	if !f.IsValid() || f.Kind() != reflect.Int {
		return false
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().SetInt(int64(code))
	return true
}

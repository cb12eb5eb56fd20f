package server

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed web
var webFS embed.FS

// webRoutes serves the embedded UI: the app at /, the login page at
// /login and static files under /assets/ (public: they hold no data).
func (s *Server) webRoutes(mux *http.ServeMux) {
	sub, err := fs.Sub(webFS, "web")
	if err != nil {
		panic(err) // the embed directive guarantees the folder
	}
	files := http.FileServerFS(sub)
	page := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
			http.ServeFileFS(w, r, sub, name)
		}
	}
	mux.Handle("/login", methods{"GET": page("login.html")})
	mux.Handle("/{$}", methods{"GET": page("index.html")})
	mux.Handle("/assets/", methods{"GET": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	}})
}

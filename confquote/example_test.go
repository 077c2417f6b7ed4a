package confquote_test

import (
	"fmt"

	"gantry.dev/gantry/confquote"
)

func ExampleNginx() {
	tok, err := confquote.Nginx(`x; return 500 "pwned"; #`)
	fmt.Printf("return 200 %s;\n", tok)
	fmt.Println(err)

	_, err = confquote.Nginx("/api/$host")
	fmt.Println(err)
	_, err = confquote.Nginx("abcdefg\x00")
	fmt.Println(err)
	// Output:
	// return 200 "x; return 500 \"pwned\"; #";
	// <nil>
	// nginx: cannot quote a string with a "$" (at byte 5): nginx expands "$" as a variable in many directive arguments, quoted or not, and has no escape for a literal "$"
	// nginx: cannot quote a string with a NUL byte (at byte 7): nginx compares many arguments as C strings, which end at the first NUL
}

func ExampleHAProxy() {
	word, _ := confquote.HAProxy("it's $HOME # not a comment\n")
	fmt.Printf("http-request return status 200 content-type text/plain string %s\n", word)

	_, err := confquote.HAProxy("")
	fmt.Println(err)
	// Output:
	// http-request return status 200 content-type text/plain string 'it'\''s $HOME # not a comment'\n
	// haproxy: cannot quote an empty string: an empty word ends haproxy's argument list: HAProxy 2.x silently ignores the words after it, 3.2 and later reject the line
}

func ExampleHAProxyLogFormat() {
	word, _ := confquote.HAProxyLogFormat("100% %[env(SECRET)]")
	fmt.Printf("http-response set-header X-Note %s\n", word)
	// Output:
	// http-response set-header X-Note '100%% %%[env(SECRET)]'
}

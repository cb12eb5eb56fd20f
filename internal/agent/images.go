package agent

import "fmt"

// checkImages refuses a prompt carrying images for a model the catalog says
// takes none, before anything is stored or sent: the provider would answer
// with an opaque 400, or, worse, drop the images silently. A model the
// catalog does not know is given the images (its provider judges).
func checkImages(st *turnState) error {
	if len(st.in.Images) == 0 || !st.model.NoImages {
		return nil
	}
	return fmt.Errorf("model %q does not take images (%d attached): switch to a model that does (/model, --model, e.g. an Anthropic, OpenAI or Gemini model) or send the prompt without the images", st.spec, len(st.in.Images))
}

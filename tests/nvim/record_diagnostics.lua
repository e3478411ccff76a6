-- Headless Neovim (0.7+): attach the built-in LSP client to `trtlint lsp`, open two files of a project, edit
-- the C++ plugin name constant in the buffer (unsaved), change it back, and record the diagnostics Neovim
-- received for the Python file at each step as JSON. Driven by tests/test_nvim.py through environment variables.
local root = os.getenv("TRTLINT_NVIM_ROOT")
local py_file = os.getenv("TRTLINT_NVIM_PY")
local cpp_file = os.getenv("TRTLINT_NVIM_CPP")
local out = os.getenv("TRTLINT_NVIM_OUT")
local python = os.getenv("TRTLINT_NVIM_PYTHON")
local result = { steps = {}, t0 = vim.loop.hrtime() / 1e6 }

local function finish()
  local f = io.open(out, "w")
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd("qall!")
end

local function snapshot(bufnr)
  local items = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(items, { code = d.code, line = d.lnum + 1, col = d.col + 1, source = d.source, message = d.message })
  end
  return items
end

local function has(bufnr, code, line)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.code == code and d.lnum + 1 == line then
      return true
    end
  end
  return false
end

local client_id = vim.lsp.start_client({
  name = "trtlint",
  cmd = { python, "-m", "trtlint", "lsp", "--debounce-ms", "20", "--log-file", os.getenv("TRTLINT_NVIM_LOG") or "" },
  root_dir = root,
  -- no init_options: the default parallel extraction (a process pool started from the server's worker thread)
})
if not client_id then
  result.error = "the LSP client did not start"
  finish()
  return
end

vim.cmd("edit " .. vim.fn.fnameescape(py_file))
local py_buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(py_buf, client_id)
local ok = vim.wait(60000, function() return has(py_buf, "TRT101", 32) end, 50)
table.insert(result.steps, { name = "open", ok = ok, diagnostics = snapshot(py_buf), t = vim.loop.hrtime() / 1e6 })

vim.cmd("edit " .. vim.fn.fnameescape(cpp_file))
local cpp_buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(cpp_buf, client_id)
local line = vim.api.nvim_buf_get_lines(cpp_buf, 11, 12, false)[1]
local edited = line:gsub('"FooPlugin"', '"FooPluginX"')
vim.api.nvim_buf_set_lines(cpp_buf, 11, 12, false, { edited })
ok = vim.wait(60000, function() return has(py_buf, "TRT101", 17) end, 20)
table.insert(result.steps, { name = "cpp-edit", ok = ok, diagnostics = snapshot(py_buf), t = vim.loop.hrtime() / 1e6 })

vim.api.nvim_buf_set_lines(cpp_buf, 11, 12, false, { line })
ok = vim.wait(60000, function() return not has(py_buf, "TRT101", 17) end, 20)
table.insert(result.steps, { name = "cpp-revert", ok = ok, diagnostics = snapshot(py_buf), t = vim.loop.hrtime() / 1e6 })
result.modified = vim.api.nvim_buf_get_option(cpp_buf, "modified")
finish()

import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_args_0_: torch.Tensor, L_self_modules_embeddings_modules_word_embeddings_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_embeddings_buffers_position_ids_: torch.Tensor, L_self_modules_embeddings_modules_position_embeddings_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_embeddings_modules_LayerNorm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_embeddings_modules_LayerNorm_parameters_bias_: torch.nn.parameter.Parameter):
        l_args_0_ = L_args_0_
        l_self_modules_embeddings_modules_word_embeddings_parameters_weight_ = L_self_modules_embeddings_modules_word_embeddings_parameters_weight_
        l_self_modules_embeddings_buffers_position_ids_ = L_self_modules_embeddings_buffers_position_ids_
        l_self_modules_embeddings_modules_position_embeddings_parameters_weight_ = L_self_modules_embeddings_modules_position_embeddings_parameters_weight_
        l_self_modules_embeddings_modules_layer_norm_parameters_weight_ = L_self_modules_embeddings_modules_LayerNorm_parameters_weight_
        l_self_modules_embeddings_modules_layer_norm_parameters_bias_ = L_self_modules_embeddings_modules_LayerNorm_parameters_bias_
        embedding = torch.nn.functional.embedding(l_args_0_, l_self_modules_embeddings_modules_word_embeddings_parameters_weight_, 0, None, 2.0, False, False);  l_args_0_ = l_self_modules_embeddings_modules_word_embeddings_parameters_weight_ = None
        getitem = l_self_modules_embeddings_buffers_position_ids_[(slice(None, None, None), slice(None, 64, None))];  l_self_modules_embeddings_buffers_position_ids_ = None
        embedding_1 = torch.nn.functional.embedding(getitem, l_self_modules_embeddings_modules_position_embeddings_parameters_weight_, None, None, 2.0, False, False);  getitem = l_self_modules_embeddings_modules_position_embeddings_parameters_weight_ = None
        add = embedding + embedding_1;  embedding = embedding_1 = None
        layer_norm = torch.nn.functional.layer_norm(add, (128,), l_self_modules_embeddings_modules_layer_norm_parameters_weight_, l_self_modules_embeddings_modules_layer_norm_parameters_bias_, 1e-12);  add = l_self_modules_embeddings_modules_layer_norm_parameters_weight_ = l_self_modules_embeddings_modules_layer_norm_parameters_bias_ = None
        dropout = torch.nn.functional.dropout(layer_norm, 0.1, False, False);  layer_norm = None
        return (dropout,)
